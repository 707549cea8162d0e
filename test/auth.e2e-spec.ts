import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, type CryptoKey, decodeJwt, exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { TestApp, type TestResponse } from './support/test-app.js';
import type { TokenBody } from './support/api-types.js';
import { expectErrorBody } from './support/expectations.js';

/**
 * Sign-in through both identity providers (docs/CONTRACT.md section 5), against providers the tests run
 * themselves on 127.0.0.1: an OpenID Connect key set (idp1) and an RFC 7662 introspection endpoint (idp2).
 */

const IDP1_ISSUER = 'https://idp1.test.example';
const IDP1_AUDIENCE = 'game-client';
const IDP2_CLIENT_ID = 'game-backend';
const IDP2_CLIENT_SECRET = 'introspection-secret-123';
const JWT_SECRET = 'e2e-known-jwt-secret-of-more-than-32-characters';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// ---------------------------------------------------------------------------------------------------
// Local providers
// ---------------------------------------------------------------------------------------------------

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}

async function closeServer(server: Server | undefined): Promise<void> {
  if (!server?.listening) return;
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/** A port on 127.0.0.1 that nothing listens on: a server is started there and closed again. */
async function deadPort(): Promise<number> {
  const server = await listen(() => undefined);
  const port = portOf(server);
  await closeServer(server);
  return port;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** idp1's JWKS endpoint: publishes whatever keys the test puts in `keys` and counts the fetches. */
class JwksServer {
  keys: JWK[] = [];
  fetches = 0;
  /** When set, the endpoint answers 500 (a provider outage). */
  failing = false;
  private constructor(readonly server: Server) {}

  static async start(): Promise<JwksServer> {
    let self: JwksServer | undefined;
    const server = await listen((request, response) => {
      if (request.method === 'GET' && request.url === '/jwks') {
        self!.fetches += 1;
        if (self!.failing) sendJson(response, 500, { error: 'internal' });
        else sendJson(response, 200, { keys: self!.keys });
      } else {
        sendJson(response, 404, { error: 'not found' });
      }
    });
    self = new JwksServer(server);
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${portOf(this.server)}/jwks`;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

interface IntrospectionRequest {
  method: string | undefined;
  url: string | undefined;
  contentType: string | undefined;
  authorization: string | undefined;
  form: URLSearchParams;
}

/** idp2's RFC 7662 introspection endpoint: answers per token from `answers`, records every request. */
class IntrospectionServer {
  readonly requests: IntrospectionRequest[] = [];
  /** token -> [HTTP status, JSON answer]; an unknown token is inactive. */
  readonly answers = new Map<string, [number, unknown]>();
  private constructor(readonly server: Server) {}

  static async start(): Promise<IntrospectionServer> {
    let self: IntrospectionServer | undefined;
    const server = await listen((request, response) => {
      void readBody(request).then((text) => {
        const form = new URLSearchParams(text);
        self!.requests.push({
          method: request.method,
          url: request.url,
          contentType: request.headers['content-type'],
          authorization: request.headers.authorization,
          form,
        });
        const [status, answer] = self!.answers.get(form.get('token') ?? '') ?? [200, { active: false }];
        sendJson(response, status, answer);
      });
    });
    self = new IntrospectionServer(server);
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${portOf(this.server)}/oauth2/introspect`;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

const now = () => Math.floor(Date.now() / 1000);

type KeyPair = { privateKey: CryptoKey; publicKey: CryptoKey };

async function publicJwk(pair: KeyPair, kid: string): Promise<JWK> {
  return { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' };
}

/** An idp1 token: valid claims by default (issuer, audience, an hour of life), overridable per test. */
async function idp1Token(claims: JWTPayload, options: { key: CryptoKey | Uint8Array; kid: string; alg?: string }): Promise<string> {
  const payload: JWTPayload = { iss: IDP1_ISSUER, aud: IDP1_AUDIENCE, iat: now(), exp: now() + 3600, ...claims };
  return new SignJWT(payload).setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid, typ: 'JWT' }).sign(options.key);
}

function encodeSegment(value: unknown): string {
  return base64url.encode(JSON.stringify(value));
}

function expectToken(response: TestResponse): string {
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    refreshToken: expect.stringMatching(/^[\w-]{43}$/),
    expiresIn: 3600,
  });
  return (response.body as TokenBody).token;
}

// ---------------------------------------------------------------------------------------------------

describe('signing in', () => {
  let api: TestApp;
  let jwks: JwksServer;
  let introspection: IntrospectionServer;
  let providerKey: KeyPair;

  const idp1 = (authorization?: string) => api.get('/auth/idp1', { headers: authorization === undefined ? {} : { authorization } });
  const idp2 = (authorization?: string) => api.get('/auth/idp2', { headers: authorization === undefined ? {} : { authorization } });
  const validIdp1Token = (claims: JWTPayload) => idp1Token(claims, { key: providerKey.privateKey, kid: 'key-1' });
  /** Signs `subject` in through idp1 and returns our JWT. */
  const signIn = async (subject: string, claims: JWTPayload = {}) =>
    expectToken(await idp1(`jwt ${await validIdp1Token({ sub: subject, ...claims })}`));

  const userRows = async (provider: string, subject: string) =>
    (await api.database.query('SELECT uid, name, email FROM users WHERE provider = $1 AND subject = $2', [provider, subject]))
      .rows as Array<{ uid: string; name: string | null; email: string | null }>;
  const personaRows = async (userUid: string) =>
    (await api.database.query('SELECT uid, name, version FROM personas WHERE "userUid" = $1', [userUid])).rows as Array<{
      uid: string;
      name: string;
      version: number;
    }>;

  beforeAll(async () => {
    providerKey = await generateKeyPair('RS256');
    jwks = await JwksServer.start();
    jwks.keys = [await publicJwk(providerKey, 'key-1')];
    introspection = await IntrospectionServer.start();
    api = await TestApp.start({
      IDP1_JWKS_URL: jwks.url,
      IDP1_ISSUER,
      IDP1_AUDIENCE,
      IDP1_JWKS_COOLDOWN: '0',
      IDP2_INTROSPECTION_URL: introspection.url,
      IDP2_CLIENT_ID,
      IDP2_CLIENT_SECRET,
      JWT_SECRET,
      ADMIN_USERS: 'idp1:boss',
    });
  });

  afterAll(async () => {
    await api?.close();
    await jwks?.close();
    await introspection?.close();
  });

  describe('with idp1 (OpenID Connect)', () => {
    it('exchanges a valid provider token for our token, which then opens protected routes', async () => {
      const token = await signIn('idp1-valid');
      expect(jwks.fetches).toBeGreaterThanOrEqual(1);
      const personas = await api.get('/personas', { token });
      expect(personas.status).toBe(200);
      expect(personas.body).toHaveLength(1);
    });

    it('refuses a token signed by another key that claims the same key id', async () => {
      const impostor = await generateKeyPair('RS256');
      const token = await idp1Token({ sub: 'idp1-forged' }, { key: impostor.privateKey, kid: 'key-1' });
      expectErrorBody(await idp1(`jwt ${token}`), 401, 'UNAUTHORIZED');
      expect(await userRows('idp1', 'idp1-forged')).toEqual([]);
    });

    it('refuses an expired token', async () => {
      const token = await validIdp1Token({ sub: 'idp1-expired', iat: now() - 7200, exp: now() - 3600 });
      expectErrorBody(await idp1(`jwt ${token}`), 401, 'UNAUTHORIZED');
    });

    it('refuses a token that is not valid yet (nbf in the future)', async () => {
      const token = await validIdp1Token({ sub: 'idp1-early', nbf: now() + 600 });
      expectErrorBody(await idp1(`jwt ${token}`), 401, 'UNAUTHORIZED');
    });

    it('refuses a token from another issuer', async () => {
      const token = await validIdp1Token({ sub: 'idp1-issuer', iss: 'https://evil.test.example' });
      expectErrorBody(await idp1(`jwt ${token}`), 401, 'UNAUTHORIZED');
    });

    it('refuses a token meant for another audience', async () => {
      const token = await validIdp1Token({ sub: 'idp1-audience', aud: 'another-client' });
      expectErrorBody(await idp1(`jwt ${token}`), 401, 'UNAUTHORIZED');
    });

    it('fetches the key set again on an unknown key id, so a newly rotated-in key is accepted', async () => {
      await signIn('idp1-rotation-warmup'); // the key set is cached now
      const fetchesBefore = jwks.fetches;
      const rotated = await generateKeyPair('RS256');
      const rotatedToken = await idp1Token({ sub: 'idp1-rotated' }, { key: rotated.privateKey, kid: 'key-2' });

      // Not published yet: the service asks the provider again, finds nothing, refuses.
      expectErrorBody(await idp1(`jwt ${rotatedToken}`), 401, 'UNAUTHORIZED');
      expect(jwks.fetches).toBe(fetchesBefore + 1);

      // The provider rotates the new key in: the next token with that kid is accepted.
      jwks.keys = [...jwks.keys, await publicJwk(rotated, 'key-2')];
      expectToken(await idp1(`jwt ${rotatedToken}`));
      expect(jwks.fetches).toBe(fetchesBefore + 2);

      // The old key keeps working, from the cache.
      await signIn('idp1-rotation-old-key');
      expect(jwks.fetches).toBe(fetchesBefore + 2);
    });

    it('refuses a token whose key id the provider never publishes', async () => {
      const stranger = await generateKeyPair('RS256');
      const fetchesBefore = jwks.fetches;
      const token = await idp1Token({ sub: 'idp1-unknown-kid' }, { key: stranger.privateKey, kid: 'never-published' });
      expectErrorBody(await idp1(`jwt ${token}`), 401, 'UNAUTHORIZED');
      expect(jwks.fetches).toBe(fetchesBefore + 1);
    });

    it('answers 503 PROVIDER_UNAVAILABLE when the key set endpoint fails while refreshing', async () => {
      const newer = await generateKeyPair('RS256');
      const token = await idp1Token({ sub: 'idp1-outage' }, { key: newer.privateKey, kid: 'key-during-outage' });
      const fetchesBefore = jwks.fetches;
      jwks.failing = true;
      try {
        expectErrorBody(await idp1(`jwt ${token}`), 503, 'PROVIDER_UNAVAILABLE');
        expect(jwks.fetches).toBe(fetchesBefore + 1);
      } finally {
        jwks.failing = false;
      }
      // The cached keys still serve once the provider is back.
      await signIn('idp1-after-outage');
    });

    it('refuses a request without an Authorization header', async () => {
      expectErrorBody(await idp1(), 401, 'UNAUTHORIZED');
    });

    it('refuses a token that is not a JWT at all', async () => {
      expectErrorBody(await idp1('jwt not-a-token'), 401, 'UNAUTHORIZED');
    });

    it('refuses an unsigned token (alg "none")', async () => {
      const header = encodeSegment({ alg: 'none', typ: 'JWT', kid: 'key-1' });
      const payload = encodeSegment({ iss: IDP1_ISSUER, aud: IDP1_AUDIENCE, sub: 'idp1-none', iat: now(), exp: now() + 3600 });
      expectErrorBody(await idp1(`jwt ${header}.${payload}.`), 401, 'UNAUTHORIZED');
      expect(await userRows('idp1', 'idp1-none')).toEqual([]);
    });

    it("refuses an HS256 token signed with the provider's public key as the secret", async () => {
      const pem = await exportSPKI(providerKey.publicKey);
      const jwkJson = JSON.stringify(jwks.keys[0]);
      for (const secret of [pem, jwkJson]) {
        const token = await idp1Token({ sub: 'idp1-confused' }, { key: new TextEncoder().encode(secret), kid: 'key-1', alg: 'HS256' });
        expectErrorBody(await idp1(`jwt ${token}`), 401, 'UNAUTHORIZED');
      }
      expect(await userRows('idp1', 'idp1-confused')).toEqual([]);
    });

    it('refuses our own token presented as a provider token', async () => {
      const ours = await signIn('idp1-replay');
      expectErrorBody(await idp1(`jwt ${ours}`), 401, 'UNAUTHORIZED');
    });
  });

  describe('with idp2 (OAuth 2.0 token introspection)', () => {
    it('asks the provider with a form-encoded POST and Basic client credentials, and signs an active token in', async () => {
      introspection.answers.set('idp2-active-token', [200, { active: true, sub: 'idp2-alice', name: 'Alice Two' }]);
      const requestsBefore = introspection.requests.length;
      const token = expectToken(await idp2('jwt idp2-active-token'));

      expect(introspection.requests).toHaveLength(requestsBefore + 1);
      const request = introspection.requests[requestsBefore];
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/oauth2/introspect');
      expect(request.contentType).toMatch(/^application\/x-www-form-urlencoded/);
      expect(request.form.get('token')).toBe('idp2-active-token');
      const credentials = Buffer.from(`${IDP2_CLIENT_ID}:${IDP2_CLIENT_SECRET}`).toString('base64');
      expect(request.authorization).toBe(`Basic ${credentials}`);

      const [user] = await userRows('idp2', 'idp2-alice');
      expect(user).toBeDefined();
      expect(decodeJwt(token).sub).toBe(user.uid);
      expect((await api.get('/personas', { token })).status).toBe(200);
    });

    it('refuses an inactive token', async () => {
      introspection.answers.set('idp2-inactive-token', [200, { active: false }]);
      const requestsBefore = introspection.requests.length;
      expectErrorBody(await idp2('jwt idp2-inactive-token'), 401, 'UNAUTHORIZED');
      expect(introspection.requests).toHaveLength(requestsBefore + 1);
    });

    it('refuses a request without an Authorization header, without asking the provider', async () => {
      const requestsBefore = introspection.requests.length;
      expectErrorBody(await idp2(), 401, 'UNAUTHORIZED');
      expect(introspection.requests).toHaveLength(requestsBefore);
    });

    it('takes the subject from `username` when the answer has no `sub`', async () => {
      introspection.answers.set('idp2-username-token', [200, { active: true, username: 'idp2-bob' }]);
      const token = expectToken(await idp2('jwt idp2-username-token'));
      const [user] = await userRows('idp2', 'idp2-bob');
      expect(user).toBeDefined();
      expect(decodeJwt(token).sub).toBe(user.uid);
    });

    it('answers 503 PROVIDER_UNAVAILABLE, not 401, when the provider fails with a 500', async () => {
      introspection.answers.set('idp2-provider-error', [500, { error: 'server_error' }]);
      expectErrorBody(await idp2('jwt idp2-provider-error'), 503, 'PROVIDER_UNAVAILABLE');
    });
  });

  describe('users and default personas', () => {
    it('creates the user and exactly one default persona at the first sign-in', async () => {
      const token = await signIn('first-timer', { name: 'First Timer', email: 'first@example.com' });
      const users = await userRows('idp1', 'first-timer');
      expect(users).toEqual([{ uid: decodeJwt(token).sub, name: 'First Timer', email: 'first@example.com' }]);

      const personas = await api.get('/personas', { token });
      expect(personas.status).toBe(200);
      expect(personas.body).toEqual([
        expect.objectContaining({ uid: expect.stringMatching(UUID), userUid: users[0].uid, name: 'First Timer', version: 0 }),
      ]);
      expect(await personaRows(users[0].uid)).toEqual([{ uid: personas.body[0].uid, name: 'First Timer', version: 0 }]);
    });

    it('finds the same user at the next sign-in and creates no second persona', async () => {
      const first = await signIn('returning-player');
      const second = await signIn('returning-player');
      expect(decodeJwt(second).sub).toBe(decodeJwt(first).sub);
      expect(await userRows('idp1', 'returning-player')).toHaveLength(1);
      expect(await personaRows(decodeJwt(first).sub!)).toHaveLength(1);
      expect((await api.get('/personas', { token: second })).body).toHaveLength(1);
    });

    it('keeps the same subject at two providers apart as two users', async () => {
      introspection.answers.set('idp2-shared-subject', [200, { active: true, sub: 'shared-subject' }]);
      const viaIdp1 = await signIn('shared-subject');
      const viaIdp2 = expectToken(await idp2('jwt idp2-shared-subject'));
      expect(decodeJwt(viaIdp1).sub).not.toBe(decodeJwt(viaIdp2).sub);
    });

    it('creates one user and one persona when five first sign-ins of a new player race', async () => {
      const providerToken = await validIdp1Token({ sub: 'racing-player' });
      const responses = await Promise.all(Array.from({ length: 5 }, () => idp1(`jwt ${providerToken}`)));
      const subjects = responses.map((response) => decodeJwt(expectToken(response)).sub);

      const users = await userRows('idp1', 'racing-player');
      expect(users).toHaveLength(1);
      expect(new Set(subjects)).toEqual(new Set([users[0].uid]));
      expect(await personaRows(users[0].uid)).toHaveLength(1);
    });
  });

  describe('our token', () => {
    it('names the user by uid and carries roles, the session, issuer, audience, issue and expiry times', async () => {
      const token = await signIn('claims-player');
      const [user] = await userRows('idp1', 'claims-player');
      const claims = decodeJwt(token);
      const { rows: sessions } = await api.database.query('SELECT uid FROM auth_sessions WHERE "userUid" = $1', [user.uid]);
      expect(sessions).toHaveLength(1);
      expect(claims).toEqual(
        expect.objectContaining({
          sub: user.uid,
          roles: ['user'],
          sid: sessions[0].uid,
          iss: 'game-backend',
          aud: 'game-backend',
          iat: expect.any(Number),
          exp: expect.any(Number),
        }),
      );
      expect(Math.abs(claims.iat! - now())).toBeLessThanOrEqual(60);
      expect(claims.exp! - claims.iat!).toBe(3600);
    });

    it('makes the users listed in ADMIN_USERS admins, and only them', async () => {
      const boss = await signIn('boss');
      expect(decodeJwt(boss).roles).toEqual(expect.arrayContaining(['admin']));
      const created = await api.post('/items', { name: 'Boss Sword' }, { token: boss });
      expect(created.status).toBe(201);
      expect(created.body).toEqual(expect.objectContaining({ name: 'Boss Sword', version: 0 }));

      // ADMIN_USERS replaces the development default (idp1:admin): `admin` is an ordinary player here.
      const notAdmin = await signIn('admin');
      expect(decodeJwt(notAdmin).roles).not.toContain('admin');
      expectErrorBody(await api.post('/items', { name: 'Sneaky Sword' }, { token: notAdmin }), 403, 'FORBIDDEN');
    });

    it('is accepted as "jwt", "JWT" and "Bearer"', async () => {
      const token = await signIn('scheme-player');
      for (const scheme of ['jwt', 'JWT', 'Bearer', 'bearer']) {
        const response = await api.get('/personas', { headers: { authorization: `${scheme} ${token}` } });
        expect({ scheme, status: response.status }).toEqual({ scheme, status: 200 });
        expect(response.body).toHaveLength(1);
      }
    });

    it('is refused when its payload was tampered with', async () => {
      const token = await signIn('tamper-player');
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)));
      const tampered = `${header}.${encodeSegment({ ...claims, roles: ['user', 'admin'] })}.${signature}`;
      expectErrorBody(await api.get('/personas', { token: tampered }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/items', { name: 'Forged Sword' }, { token: tampered }), 401, 'UNAUTHORIZED');
    });

    it('is refused when signed with another secret', async () => {
      const [user] = await userRows('idp1', 'boss');
      const forged = await new SignJWT({ roles: ['user', 'admin'] })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.uid)
        .setIssuer('game-backend')
        .setAudience('game-backend')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('not-the-secret-but-just-as-long-as-it'));
      expectErrorBody(await api.get('/personas', { token: forged }), 401, 'UNAUTHORIZED');
    });

    it('is refused once expired', async () => {
      const token = await signIn('expiry-player');
      const { sub, sid } = decodeJwt<{ sid: string }>(token);
      const sign = (issuedAt: number, expiresAt: number) =>
        new SignJWT({ roles: ['user'], sid })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setSubject(sub!)
          .setIssuer('game-backend')
          .setAudience('game-backend')
          .setIssuedAt(issuedAt)
          .setExpirationTime(expiresAt)
          .sign(new TextEncoder().encode(JWT_SECRET));

      // The same token, still within its lifetime, is accepted: the secret and claims are right.
      expect((await api.get('/personas', { token: await sign(now() - 60, now() + 600) })).status).toBe(200);
      expectErrorBody(await api.get('/personas', { token: await sign(now() - 7200, now() - 3600) }), 401, 'UNAUTHORIZED');
    });
  });

  describe('route protection', () => {
    it('refuses a protected route without a token', async () => {
      expectErrorBody(await api.get('/items'), 401, 'UNAUTHORIZED');
    });

    it('refuses a protected route with a garbage Authorization header', async () => {
      for (const authorization of ['garbage', 'jwt', 'jwt not.a.token', 'Basic dXNlcjpwYXNz']) {
        const response = await api.get('/items', { headers: { authorization } });
        expectErrorBody(response, 401, 'UNAUTHORIZED');
      }
    });

    it('refuses an admin-only route to a signed-in player with 403', async () => {
      const token = await signIn('ordinary-player');
      expect((await api.get('/items', { token })).status).toBe(200);
      expectErrorBody(await api.post('/items', { name: 'Sword' }, { token }), 403, 'FORBIDDEN');
    });

    it('answers /health without a token', async () => {
      const response = await api.get('/health');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
    });
  });

  describe('when the providers are down', () => {
    let down: TestApp;

    beforeAll(async () => {
      // A fresh app, so that no key set is cached, pointing at ports nothing listens on.
      const jwksPort = await deadPort();
      const introspectionPort = await deadPort();
      down = await TestApp.start({
        IDP1_JWKS_URL: `http://127.0.0.1:${jwksPort}/jwks`,
        IDP1_ISSUER,
        IDP1_AUDIENCE,
        IDP1_JWKS_COOLDOWN: '0',
        IDP2_INTROSPECTION_URL: `http://127.0.0.1:${introspectionPort}/oauth2/introspect`,
        IDP2_CLIENT_ID,
        IDP2_CLIENT_SECRET,
        JWT_SECRET,
      });
    });

    afterAll(async () => {
      await down?.close();
    });

    it('answers 503 PROVIDER_UNAVAILABLE when the idp1 key set cannot be fetched', async () => {
      const token = await validIdp1Token({ sub: 'idp1-while-down' });
      const response = await down.get('/auth/idp1', { headers: { authorization: `jwt ${token}` } });
      expectErrorBody(response, 503, 'PROVIDER_UNAVAILABLE');
    });

    it('answers 503 PROVIDER_UNAVAILABLE when the idp2 introspection endpoint is unreachable', async () => {
      const response = await down.get('/auth/idp2', { headers: { authorization: 'jwt idp2-while-down' } });
      expectErrorBody(response, 503, 'PROVIDER_UNAVAILABLE');
    });
  });
});
