import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, decodeJwt, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { DEV_IDP_ISSUER } from '../src/auth/providers/dev-identity-provider.js';
import { expectErrorBody } from './support/expectations.js';
import { TestApp } from './support/test-app.js';

/**
 * Forged, replayed and misused tokens: every one is 401 and changes nothing. These complete the
 * attacks test/auth.e2e-spec.ts already makes (SECURITY.md lists both): there, against idp1, alg "none",
 * HS256 signed with the provider's public key, expired, not yet valid, wrong issuer and audience,
 * another key under the same kid, our own JWT replayed at /auth/idp1, an inactive idp2 token; and
 * against our JWT, a tampered payload, another secret and expiry. Here: the same attacks on our own
 * JWT, the header tricks (embedded keys, key URLs, crit), and an idp2 token revoked after a sign-in.
 */

const JWT_SECRET = 'token-attacks-secret-of-more-than-32-characters';
const ISSUER = 'game-backend';
const AUDIENCE = 'game-backend';
const IDP2_CLIENT_ID = 'game-backend';
const IDP2_CLIENT_SECRET = 'introspection-secret-456';

const now = () => Math.floor(Date.now() / 1000);
const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
const secretKey = (secret: string) => new TextEncoder().encode(secret);

/** An idp2 introspection endpoint whose answers the tests set per token; it counts its calls. */
async function startIntrospection(answers: Map<string, unknown>): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const token = new URLSearchParams(body).get('token') ?? '';
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answers.get(token) ?? { active: false }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('token attacks', () => {
  let api: TestApp;
  let introspection: Server;
  const introspectionAnswers = new Map<string, unknown>();
  let adminUid: string;
  let adminSessionUid: string;
  let playerToken: string;

  /** Claims our service would issue to the admin: only the signature or one claim is wrong in each attack. */
  const adminClaims = (overrides: JWTPayload = {}): JWTPayload => ({
    sub: adminUid,
    roles: ['user', 'admin'],
    sid: adminSessionUid,
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now(),
    exp: now() + 3600,
    ...overrides,
  });
  const sign = (claims: JWTPayload, secret = JWT_SECRET, alg = 'HS256') =>
    new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(secretKey(secret));

  const counts = async () =>
    (
      await api.database.query<{ users: number; items: number; personas: number; sessions: number }>(
        'SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM items)::int AS items, (SELECT count(*) FROM personas)::int AS personas, (SELECT count(*) FROM sessions)::int AS sessions',
      )
    ).rows[0];

  /** The token opens neither a player's route nor an admin's, and the write it tries leaves no trace. */
  async function expectRefusedEverywhere(token: string): Promise<void> {
    const before = await counts();
    expectErrorBody(await api.get('/personas', { token }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.post('/items', { name: 'Forged Sword' }, { token }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.delete('/sessions', { token }), 401, 'UNAUTHORIZED');
    // Optional-auth routes refuse a bad token too, rather than treating the caller as anonymous.
    expectErrorBody(await api.get('/achievements/count', { token }), 401, 'UNAUTHORIZED');
    expect(await counts()).toEqual(before);
  }

  beforeAll(async () => {
    introspection = await startIntrospection(introspectionAnswers);
    const { port } = introspection.address() as AddressInfo;
    api = await TestApp.start({
      JWT_SECRET,
      IDP2_INTROSPECTION_URL: `http://127.0.0.1:${port}/introspect`,
      IDP2_CLIENT_ID,
      IDP2_CLIENT_SECRET,
    });
    const admin = await api.signIn('admin');
    adminUid = decodeJwt(admin).sub!;
    adminSessionUid = decodeJwt<{ sid: string }>(admin).sid;
    playerToken = await api.signIn('token-attack-player');
  });

  afterAll(async () => {
    await api.close();
    introspection.closeAllConnections();
    await new Promise<void>((resolve) => introspection.close(() => resolve()));
  });

  it('accepts the genuine article, so that each refusal below is down to the one thing changed', async () => {
    const genuine = await sign(adminClaims());
    expect((await api.get('/personas', { token: genuine })).status).toBe(200);
    const created = await api.post('/items', { name: 'Genuine Sword' }, { token: genuine });
    expect(created.status).toBe(201);
  });

  describe('against our JWT', () => {
    it.each(['none', 'None', 'NONE', 'nOnE'])('refuses an unsigned token (alg "%s"), with or without a signature part', async (alg) => {
      const unsigned = `${encode({ alg, typ: 'JWT' })}.${encode(adminClaims())}`;
      await expectRefusedEverywhere(`${unsigned}.`);
      const genuineSignature = (await sign(adminClaims())).split('.')[2];
      await expectRefusedEverywhere(`${unsigned}.${genuineSignature}`);
    });

    it.each(['HS384', 'HS512'])('refuses a token signed with the right secret under %s (only HS256 is ours)', async (alg) => {
      await expectRefusedEverywhere(await sign(adminClaims(), JWT_SECRET, alg));
    });

    it('refuses an RS256 token, whoever signed it, and a genuine idp1 provider token used as ours', async () => {
      const { privateKey } = await generateKeyPair('RS256');
      await expectRefusedEverywhere(await new SignJWT(adminClaims()).setProtectedHeader({ alg: 'RS256' }).sign(privateKey));
      await expectRefusedEverywhere(await api.providerToken('admin'));
    });

    it('refuses a token from another issuer, for another audience, or naming neither', async () => {
      await expectRefusedEverywhere(await sign(adminClaims({ iss: 'https://evil.example.net' })));
      await expectRefusedEverywhere(await sign(adminClaims({ aud: 'leaderboard-service' })));
      await expectRefusedEverywhere(await sign(adminClaims({ aud: ['leaderboard-service', 'chat-service'] })));
      const { iss: _iss, aud: _aud, ...bare } = adminClaims();
      await expectRefusedEverywhere(await sign(bare));
    });

    it('refuses a token another service signed for itself, even one that shares our secret', async () => {
      const foreign = { iss: 'leaderboard-service', aud: 'leaderboard-service' };
      await expectRefusedEverywhere(await sign(adminClaims(foreign), 'the-leaderboard-services-own-secret-value'));
      await expectRefusedEverywhere(await sign(adminClaims(foreign)));
    });

    it('refuses a token that is not valid yet (nbf an hour ahead)', async () => {
      await expectRefusedEverywhere(await sign(adminClaims({ nbf: now() + 3600 })));
    });

    it('refuses a correctly signed token that does not have our claims (no sub, roles not a list)', async () => {
      const { sub: _sub, ...withoutSubject } = adminClaims();
      await expectRefusedEverywhere(await sign(withoutSubject));
      await expectRefusedEverywhere(await sign(adminClaims({ roles: 'admin' })));
    });

    it('refuses a correctly signed token without a session (as issued before sessions existed), or naming a session not a uuid', async () => {
      const { sid: _sid, ...withoutSession } = adminClaims();
      await expectRefusedEverywhere(await sign(withoutSession));
      await expectRefusedEverywhere(await sign(adminClaims({ sid: "x' OR '1'='1" })));
    });

    it("refuses a player's token whose roles were raised, or whose subject was swapped for the admin's", async () => {
      const [header, payload, signature] = playerToken.split('.');
      const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as JWTPayload;
      await expectRefusedEverywhere(`${header}.${encode({ ...claims, sub: adminUid, roles: ['user', 'admin'] })}.${signature}`);
      // The same claims re-encoded with other whitespace: the signature covers the bytes, not the meaning.
      const respaced = base64url.encode(JSON.stringify(claims, null, 1));
      await expectRefusedEverywhere(`${header}.${respaced}.${signature}`);
    });

    it('refuses malformed Authorization headers: two tokens, an oversized token, a token in the query', async () => {
      const genuine = await sign(adminClaims());
      for (const authorization of [`jwt ${genuine} ${genuine}`, `jwt ${genuine},${genuine}`, `jwt ${'a'.repeat(9000)}`, `jwt\t\t`]) {
        expectErrorBody(await api.get('/personas', { headers: { authorization } }), 401, 'UNAUTHORIZED');
      }
      expectErrorBody(await api.get(`/personas?token=${genuine}`), 401, 'UNAUTHORIZED');
    });
  });

  describe('against idp1 (the development provider here)', () => {
    const signInWith = (token: string) => api.get('/auth/idp1', { headers: { authorization: `jwt ${token}` } });
    const usersNamed = async (subject: string) =>
      (await api.database.query('SELECT uid FROM users WHERE subject = $1', [subject])).rowCount;

    it('ignores a key the token brings along (jwk header) or points to (jku, x5u): only the provider keys count', async () => {
      const attacker = await generateKeyPair('RS256', { extractable: true });
      const attackerJwk = { ...(await exportJWK(attacker.publicKey)), kid: 'attacker', alg: 'RS256' };
      let fetched = 0;
      const attackerJwks = createServer((_request, response) => {
        fetched += 1;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ keys: [attackerJwk] }));
      });
      await new Promise<void>((resolve) => attackerJwks.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(attackerJwks.address() as AddressInfo).port}/jwks`;
      try {
        const claims = { iss: DEV_IDP_ISSUER, sub: 'jwk-smuggler', iat: now(), exp: now() + 600 };
        for (const header of [
          { alg: 'RS256', kid: 'attacker', jwk: attackerJwk },
          { alg: 'RS256', kid: 'attacker', jku: url },
          { alg: 'RS256', kid: 'attacker', x5u: url },
        ]) {
          const token = await new SignJWT(claims).setProtectedHeader(header).sign(attacker.privateKey);
          expectErrorBody(await signInWith(token), 401, 'UNAUTHORIZED');
        }
        expect(fetched).toBe(0);
        expect(await usersNamed('jwk-smuggler')).toBe(0);
      } finally {
        attackerJwks.closeAllConnections();
        await new Promise<void>((resolve) => attackerJwks.close(() => resolve()));
      }
    });

    it('refuses a provider token with a critical header extension it does not understand', async () => {
      const genuine = await api.providerToken('crit-player');
      const [header, payload, signature] = genuine.split('.');
      const decoded = JSON.parse(new TextDecoder().decode(base64url.decode(header)));
      // Re-signing is impossible without the provider's key; adding crit breaks the signature anyway,
      // and jose refuses the unknown extension before it looks at the signature.
      const withCrit = `${encode({ ...decoded, crit: ['exp-extension'], 'exp-extension': true })}.${payload}.${signature}`;
      expectErrorBody(await signInWith(withCrit), 401, 'UNAUTHORIZED');
      expect(await usersNamed('crit-player')).toBe(0);
    });

    it('refuses our own JWT presented at /auth/idp2 as a provider token', async () => {
      expectErrorBody(await api.get('/auth/idp2', { headers: { authorization: `jwt ${playerToken}` } }), 401, 'UNAUTHORIZED');
    });
  });

  describe('against idp2 (token introspection)', () => {
    const signInWith = (token: string) => api.get('/auth/idp2', { headers: { authorization: `jwt ${token}` } });

    it('refuses a token the provider revoked after it had signed someone in: nothing is cached', async () => {
      introspectionAnswers.set('idp2-revocable', { active: true, sub: 'idp2-revoked-player' });
      expect((await signInWith('idp2-revocable')).status).toBe(200);
      introspectionAnswers.set('idp2-revocable', { active: false });
      expectErrorBody(await signInWith('idp2-revocable'), 401, 'UNAUTHORIZED');
    });

    it('refuses answers that are not a plain "active": true, and active tokens that expired or name nobody', async () => {
      const answers: unknown[] = [
        { active: 'true', sub: 'idp2-string-active' },
        { active: 1, sub: 'idp2-number-active' },
        { sub: 'idp2-no-active' },
        { active: true, sub: 'idp2-expired', exp: now() - 60 },
        { active: true },
        { active: true, sub: '' },
        { active: true, sub: 42 },
      ];
      for (const [index, answer] of answers.entries()) {
        introspectionAnswers.set(`idp2-odd-${index}`, answer);
        expect({ answer, status: (await signInWith(`idp2-odd-${index}`)).status }).toEqual({ answer, status: 401 });
      }
      const created = await api.database.query("SELECT subject FROM users WHERE provider = 'idp2' AND subject LIKE 'idp2-%'");
      expect(created.rows.map((row) => row.subject)).toEqual(['idp2-revoked-player']);
    });
  });
});
