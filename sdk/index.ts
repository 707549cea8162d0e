/**
 * A typed client of the game backend: openapi-fetch over the types that `npm run sdk` generates from
 * the OpenAPI document (schema.d.ts). Every path, parameter, body and response is checked by the
 * TypeScript compiler; a route that changes shape breaks the build of the client, not a player's game.
 *
 *   const api = createGameBackendClient({ baseUrl: 'https://game.example.com' });
 *   const { data } = await api.GET('/auth/idp1', { headers: { Authorization: `Bearer ${providerToken}` } });
 *   // or a guest on this device, with the random id the game keeps: POST('/auth/device', { body: { deviceId } })
 *   const player = createGameBackendClient({ baseUrl, token: data!.token });
 *   const { data: items } = await player.GET('/items', { params: { query: { limit: 10 } } });
 *
 * Needs `openapi-fetch` (0.17) in the game client's dependencies, and a global `fetch`.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
/** A record schema of the API by name, e.g. `Schema<'Item'>` or `Schema<'CreateSessionDto'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
export type GameBackendClient = Client<paths>;

export interface GameBackendClientOptions {
  /** Where the service is, e.g. `https://game.example.com` (no trailing path). */
  baseUrl: string;
  /**
   * Our JWT (from `GET /auth/idp1`, `/auth/idp2` or `POST /auth/device`), or a function returning the current one, for
   * clients that renew it. Sent as `Authorization: Bearer <token>` (the document's bearer scheme) unless a request sets its own header.
   */
  token?: string | (() => string | undefined);
  /** Another fetch (a test double, or one with a proxy agent). */
  fetch?: (request: Request) => Promise<Response>;
}

export function createGameBackendClient(options: GameBackendClientOptions): GameBackendClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
  });
  const { token } = options;
  if (token !== undefined) {
    const authorize: Middleware = {
      onRequest({ request }) {
        const current = typeof token === 'function' ? token() : token;
        // A request that brings its own Authorization (the sign-in routes take the provider's token
        // there) keeps it.
        if (current && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${current}`);
        return request;
      },
    };
    client.use(authorize);
  }
  return client;
}
export * from './media.js';
export * from './realtime.js';
