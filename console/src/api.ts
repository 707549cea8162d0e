import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../sdk/schema.js';

export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The JSON error body of the API (CONTRACT.md): what a screen shows when a request is refused. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

let currentToken: (() => Promise<string | undefined>) | undefined;

/** Where requests get the admin's token (auth.ts: in memory, refreshed before it expires). */
export function useTokenSource(source: () => Promise<string | undefined>): void {
  currentToken = source;
}

/**
 * Routes that take no token of ours. The refresh above all: the token source renews a token close to
 * expiry before a request, and asking it for the renewal's own request waited on itself.
 */
const WITHOUT_TOKEN = new Set(['/auth/refresh', '/auth/dev-token', '/auth/idp1']);

const authorize: Middleware = {
  async onRequest({ request, schemaPath }) {
    if (request.headers.has('authorization') || WITHOUT_TOKEN.has(schemaPath)) return request;
    const token = await currentToken?.();
    if (token) request.headers.set('authorization', `jwt ${token}`);
    return request;
  },
};

/** The API, typed by the generated document (sdk/schema.d.ts): a request the API would refuse does not compile. */
export const api = createClient<paths>({ baseUrl: location.origin });
api.use(authorize);

/** The data of an answer, or an ApiError with the API's code and message. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const body = (error ?? {}) as { code?: string; message?: string };
  throw new ApiError(response.status, body.code ?? 'ERROR', body.message ?? `${response.status} ${response.statusText}`, error);
}

/** The data of an answer with its response (for the headers a list's next page is named in). */
export async function mustAnswer<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<{ data: T; response: Response }> {
  const answer = await call;
  return { data: await must(Promise.resolve(answer)), response: answer.response };
}

/** A fresh key per click: a retried click is not a second award (CONTRACT.md, Idempotency-Key). */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}
