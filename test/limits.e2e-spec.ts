import { SignJWT } from 'jose';
import { expectErrorBody } from './support/expectations.js';
import { dereference } from './support/openapi-refs.js';
import { TestApp, type TestResponse } from './support/test-app.js';

/**
 * The limits of docs/CONTRACT.md section 4 and SECURITY.md: rate limits per user, per address and on
 * sign-in (429 with Retry-After), security headers, CORS from configuration, and the body size limit.
 */

const JWT_SECRET = 'limits-e2e-secret-of-more-than-32-characters';
const ALLOWED_ORIGIN = 'https://play.example.com';

let addressCount = 0;
/** A client address nobody has used yet (TEST-NET-3), so that each test starts with full budgets. */
const freshAddress = () => `203.0.113.${++addressCount}`;

const from = (address: string, token?: string) => ({
  token,
  headers: { 'x-forwarded-for': address },
});

function expectRateLimited(response: TestResponse): void {
  expectErrorBody(response, 429, 'RATE_LIMITED');
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

async function statuses(count: number, send: () => Promise<TestResponse>): Promise<number[]> {
  const result: number[] = [];
  for (let index = 0; index < count; index++) result.push((await send()).status);
  return result;
}

describe('rate limits, behind a trusted proxy', () => {
  let api: TestApp;
  /** Signs a player in from an address of its own (sign-ins have their own, smaller budget). */
  const signIn = async (subject: string): Promise<string> => {
    const provider = await api.providerToken(subject);
    const response = await api.get('/auth/idp1', { headers: { authorization: `jwt ${provider}`, 'x-forwarded-for': freshAddress() } });
    expect(response.status).toBe(200);
    return response.body.token as string;
  };

  beforeAll(async () => {
    api = await TestApp.start({
      JWT_SECRET,
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_PER_MINUTE: '5',
      RATE_LIMIT_IP_PER_MINUTE: '12',
      RATE_LIMIT_AUTH_PER_MINUTE: '3',
      TRUST_PROXY: 'true',
      CORS_ORIGINS: `${ALLOWED_ORIGIN},https://admin.example.com`,
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it("answers a user's sixth request of the minute with 429 RATE_LIMITED and a Retry-After", async () => {
    const token = await signIn('rate-alice');
    const address = freshAddress();
    expect(await statuses(5, () => api.get('/personas', from(address, token)))).toEqual([200, 200, 200, 200, 200]);
    const refused = await api.get('/personas', from(address, token));
    expectRateLimited(refused);
    expect(refused.body.message).toMatch(/for this user: at most 5 a minute/);
  });

  it("counts a user's requests across routes and addresses: one budget per user", async () => {
    const token = await signIn('rate-bob');
    const [first, second, third] = [freshAddress(), freshAddress(), freshAddress()];
    expect(await statuses(3, () => api.get('/personas', from(first, token)))).toEqual([200, 200, 200]);
    expect(await statuses(2, () => api.get('/items', from(second, token)))).toEqual([200, 200]);
    expectRateLimited(await api.get('/sessions', from(third, token)));
  });

  it("keeps users apart: one user's exhausted budget leaves another's on the same address whole", async () => {
    const carol = await signIn('rate-carol');
    const dave = await signIn('rate-dave');
    const address = freshAddress();
    await statuses(5, () => api.get('/personas', from(address, carol)));
    expectRateLimited(await api.get('/personas', from(address, carol)));
    expect(await statuses(5, () => api.get('/personas', from(address, dave)))).toEqual([200, 200, 200, 200, 200]);
  });

  it('counts an address across its users: the thirteenth request from one address is refused', async () => {
    const address = freshAddress();
    const players = await Promise.all(['rate-e1', 'rate-e2', 'rate-e3', 'rate-e4', 'rate-e5'].map(signIn));
    for (const token of players.slice(0, 4)) {
      expect(await statuses(3, () => api.get('/personas', from(address, token)))).toEqual([200, 200, 200]);
    }
    // The fifth player has spent nothing, but the address has spent its 12.
    const refused = await api.get('/personas', from(address, players[4]));
    expectRateLimited(refused);
    expect(refused.body.message).toMatch(/from this address: at most 12 a minute/);
    // Elsewhere, the same player is welcome.
    expect((await api.get('/personas', from(freshAddress(), players[4]))).status).toBe(200);
  });

  it('counts bodies the parser refuses against the address, before reading them (issue 47)', async () => {
    const address = freshAddress();
    const junk = `{"deviceId":"abcdefghijklmnopqrstuvwxyz","junk":[${Array(5000).fill('{}').join(',')}]}`;
    const refused = await statuses(12, async () => api.post('/auth/device', junk, { headers: { 'x-forwarded-for': address } }));
    expect(refused).toEqual(Array(12).fill(413));
    const thirteenth = await api.post('/auth/device', junk, { headers: { 'x-forwarded-for': address } });
    expectRateLimited(thirteenth);
    expect(thirteenth.body.message).toMatch(/from this address: at most 12 a minute/);
  });

  it('counts anonymous callers by address', async () => {
    const address = freshAddress();
    expect(await statuses(5, () => api.get('/achievements/count', from(address)))).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await api.get('/achievements/count', from(address)));
  });

  it("counts bad tokens too, and never lets a forged token spend its victim's budget", async () => {
    const victim = await signIn('rate-victim');
    const victimUid = JSON.parse(Buffer.from(victim.split('.')[1], 'base64url').toString()).sub as string;
    const forged = await new SignJWT({ roles: ['user'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(victimUid)
      .setIssuer('game-backend')
      .setAudience('game-backend')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-secret-but-long-enough-to-sign-with'));

    const attacker = freshAddress();
    // The limiter runs before the JwtGuard: the sixth bad token is 429, not another 401.
    expect(await statuses(5, () => api.get('/personas', from(attacker, forged)))).toEqual([401, 401, 401, 401, 401]);
    expectRateLimited(await api.get('/personas', from(attacker, forged)));
    // The forged tokens were counted against the attacker's address, not the victim.
    expect(await statuses(5, () => api.get('/personas', from(freshAddress(), victim)))).toEqual([200, 200, 200, 200, 200]);
  });

  it('allows fewer sign-ins per address than other requests, and only on /auth/*', async () => {
    const address = freshAddress();
    const provider = await api.providerToken('rate-sign-in');
    const signInFrom = (ip: string) => api.get('/auth/idp1', { headers: { authorization: `jwt ${provider}`, 'x-forwarded-for': ip } });
    expect(await statuses(3, () => signInFrom(address))).toEqual([200, 200, 200]);
    const refused = await signInFrom(address);
    expectRateLimited(refused);
    expect(refused.body.message).toMatch(/sign-ins from this address: at most 3 a minute/);
    expectRateLimited(await api.get('/auth/idp2', { headers: { 'x-forwarded-for': address } }));

    // Another address signs in; the refused address still reaches the other routes.
    const token = (await signInFrom(freshAddress())).body.token as string;
    expect((await api.get('/personas', from(address, token))).status).toBe(200);
  });

  it('never limits health, readiness, metrics or the docs', async () => {
    const address = freshAddress();
    for (const path of ['/health', '/health/ready', '/metrics', '/docs', '/docs-json']) {
      expect({ path, statuses: await statuses(15, () => api.get(path, from(address))) }).toEqual({
        path,
        statuses: Array(15).fill(200),
      });
    }
    // ...and they spent nothing of the address's budget.
    expect(await statuses(5, () => api.get('/achievements/count', from(address)))).toEqual([200, 200, 200, 200, 200]);
  });

  it('sends the CORS headers on a 429 too, so that a browser game can read Retry-After', async () => {
    const address = freshAddress();
    const headers = { 'x-forwarded-for': address, origin: ALLOWED_ORIGIN };
    await statuses(5, () => api.get('/achievements/count', { headers }));
    const refused = await api.get('/achievements/count', { headers });
    expectRateLimited(refused);
    expect(refused.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
    expect(String(refused.headers['access-control-expose-headers'])).toMatch(/Retry-After/i);
  });

  describe('CORS from CORS_ORIGINS', () => {
    it('answers a preflight from a listed origin with the methods and headers the API uses', async () => {
      const response = await api.request('OPTIONS', '/items/00000000-0000-4000-8000-000000000000', {
        headers: {
          origin: ALLOWED_ORIGIN,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'authorization,content-type,if-match',
          'x-forwarded-for': freshAddress(),
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
      expect(String(response.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(
        expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']),
      );
      expect(String(response.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'if-match', 'idempotency-key']),
      );
      expect(response.headers['access-control-max-age']).toBe('600');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(response.headers.vary)).toMatch(/Origin/);
    });

    it('lets a listed origin read answers and the ETag, X-Request-Id and Retry-After headers', async () => {
      const response = await api.get('/health', { headers: { origin: 'https://admin.example.com' } });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('https://admin.example.com');
      expect(String(response.headers['access-control-expose-headers']).split(/,\s*/)).toEqual(
        expect.arrayContaining(['ETag', 'X-Request-Id', 'Retry-After']),
      );
    });

    it('gives an origin that is not listed no CORS headers, so its browser cannot read the answer', async () => {
      const headers = { origin: 'https://evil.example.net', 'access-control-request-method': 'GET', 'x-forwarded-for': freshAddress() };
      const preflight = await api.request('OPTIONS', '/items', { headers });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const response = await api.get('/health', { headers: { origin: 'https://evil.example.net' } });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});

describe('rate limits, without a trusted proxy', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await TestApp.start({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PER_MINUTE: '5', CORS_ORIGINS: '*' });
  });
  afterAll(async () => {
    await api.close();
  });

  it('ignores X-Forwarded-For, so that a client cannot claim a fresh address per request', async () => {
    const rotating = () => api.get('/achievements/count', { headers: { 'x-forwarded-for': freshAddress() } });
    expect(await statuses(5, rotating)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await rotating());
  });

  it('answers any origin with CORS_ORIGINS=*, without credentials', async () => {
    const response = await api.get('/health', { headers: { origin: 'https://anywhere.example.org' } });
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('with rate limiting switched off and CORS not configured', () => {
  let api: TestApp;
  let admin: string;

  beforeAll(async () => {
    api = await TestApp.start({ RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_AUTH_PER_MINUTE: '1' });
    admin = await api.signIn('admin');
  });
  afterAll(async () => {
    await api.close();
  });

  it('limits nothing when RATE_LIMIT_ENABLED=false, whatever the limits say', async () => {
    expect(await statuses(10, () => api.get('/personas', { token: admin }))).toEqual(Array(10).fill(200));
    const provider = await api.providerToken('unlimited-signer');
    const signIns = await statuses(4, () => api.get('/auth/idp1', { headers: { authorization: `jwt ${provider}` } }));
    expect(signIns).toEqual([200, 200, 200, 200]);
  });

  it('sends no CORS headers at all, and answers a preflight as a method the path does not serve (405)', async () => {
    const response = await api.get('/health', { headers: { origin: ALLOWED_ORIGIN } });
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = await api.request('OPTIONS', '/items', {
      headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'GET' },
    });
    expectErrorBody(preflight, 405, 'METHOD_NOT_ALLOWED');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('documents the 429 answer, with Retry-After, on every operation the limiter guards, and only there', async () => {
    const document = (await api.get('/docs-json')).body;
    const limited: string[] = [];
    const unlimited: string[] = [];
    for (const [path, operations] of Object.entries(
      document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        (operation.responses['429'] ? limited : unlimited).push(`${method.toUpperCase()} ${path}`);
        if (operation.responses['429']) {
          // One answer in components, which every operation refers to; its Retry-After header likewise.
          const deref = (node: object): any => dereference(document, node);
          const answer = deref(operation.responses['429']);
          expect({ ...answer, headers: { 'Retry-After': deref(answer.headers['Retry-After']) } }).toEqual(
            expect.objectContaining({
              headers: { 'Retry-After': expect.objectContaining({ required: true, schema: { type: 'integer', minimum: 1 } }) },
              content: {
                'application/json': expect.objectContaining({
                  schema: { $ref: '#/components/schemas/ErrorBody' },
                  example: expect.objectContaining({ status: 429, code: 'RATE_LIMITED' }),
                }),
              },
            }),
          );
        }
      }
    }
    expect(unlimited.sort()).toEqual(['GET /health', 'GET /health/ready', 'GET /metrics']);
    expect(limited).toEqual(expect.arrayContaining(['GET /auth/idp1', 'GET /items', 'POST /inventories/transaction']));
  });

  describe('security headers', () => {
    /** What every answer carries: nothing may frame it or sniff its type, HTTPS only, no Referer leaves. */
    const expectCommonHeaders = (response: TestResponse) => {
      expect(response.headers).toEqual(
        expect.objectContaining({
          'x-content-type-options': 'nosniff',
          'x-frame-options': 'DENY',
          'referrer-policy': 'no-referrer',
          'strict-transport-security': expect.stringMatching(/max-age=\d{7,}/),
        }),
      );
      expect(String(response.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
      expect(response.headers['x-powered-by']).toBeUndefined();
    };
    /** A JSON answer may load nothing at all; the page-only headers stay off it. */
    const expectSecurityHeaders = (response: TestResponse) => {
      expectCommonHeaders(response);
      expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(response.headers['cross-origin-opener-policy']).toBeUndefined();
      expect(response.headers['x-dns-prefetch-control']).toBeUndefined();
    };
    /** The Swagger UI's page and files: helmet's set, with a policy that lets only the service's own scripts run. */
    const expectDocumentHeaders = (response: TestResponse) => {
      expectCommonHeaders(response);
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(response.headers).toEqual(
        expect.objectContaining({
          'cross-origin-opener-policy': 'same-origin',
          'cross-origin-resource-policy': 'same-origin',
          'x-dns-prefetch-control': 'off',
          'x-permitted-cross-domain-policies': 'none',
        }),
      );
    };

    it('sends them with API answers, errors included', async () => {
      const ok = await api.get('/personas', { token: admin });
      expect(ok.status).toBe(200);
      expectSecurityHeaders(ok);
      const unauthorized = await api.get('/personas');
      expectErrorBody(unauthorized, 401, 'UNAUTHORIZED');
      expectSecurityHeaders(unauthorized);
      const unknown = await api.get('/no-such-route');
      expectErrorBody(unknown, 404, 'NOT_FOUND');
      expectSecurityHeaders(unknown);
    });

    it("sends them when the router itself refuses a request (a path parameter over the router's limit)", async () => {
      const refused = await api.get(`/items/${'a'.repeat(300)}`, { token: admin });
      expectErrorBody(refused, 400, 'VALIDATION_FAILED');
      expectSecurityHeaders(refused);
    });

    it('keeps the 1 MiB body limit: 413 PAYLOAD_TOO_LARGE, headers included', async () => {
      const response = await api.post('/items', { name: 'x'.repeat(1024 * 1024) }, { token: admin });
      expectErrorBody(response, 413, 'PAYLOAD_TOO_LARGE');
      expectSecurityHeaders(response);
      expect((await api.post('/items', { name: 'x'.repeat(200) }, { token: admin })).status).toBe(201);
    });

    it('still serves the Swagger UI at /docs, whose policy lets its own scripts and styles run', async () => {
      const page = await api.get('/docs');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('<div id="swagger-ui"></div>');
      expectDocumentHeaders(page);

      // Under script-src 'self' the page may hold no inline script: every script loads from the service.
      const html = String(page.body);
      const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThanOrEqual(3);
      for (const [, attributes, inline] of scripts) {
        expect(inline.trim()).toBe('');
        const source = /src="([^"]+)"/.exec(attributes)?.[1];
        expect(source).toMatch(/^\.\/docs\/[\w.-]+\.js$/);
        const script = await api.get(`/${source!.slice(2)}`);
        expect({ source, status: script.status }).toEqual({ source, status: 200 });
        expect(script.headers['content-type']).toMatch(/javascript/);
        expectDocumentHeaders(script);
      }
      // Its inline <style> blocks need style-src 'unsafe-inline', which the policy grants to styles only.
      expect(html).toMatch(/<style>/);
      expect(String(page.headers['content-security-policy'])).toMatch(/style-src 'self' 'unsafe-inline'/);
      // The document the UI loads is same-origin (connect-src 'self').
      const init = await api.get('/docs/swagger-ui-init.js');
      expect(init.body).toContain('"openapi"');
      const document = await api.get('/docs-json');
      expect(document.status).toBe(200);
      expectSecurityHeaders(document);
    });
  });
});
