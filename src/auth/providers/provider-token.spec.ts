// The tokens are signed with jose, another implementation than the one that verifies them, as a provider's would be.
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { ProviderKeySet, UnpublishedKey } from './provider-keys.js';
import { ProviderTokenRejected, verifyProviderToken } from './provider-token.js';

const ISSUER = 'https://idp1.unit.example';
const AUDIENCE = 'game';
const now = () => Math.floor(Date.now() / 1000);

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

async function publicJwk(pair: KeyPair, kid: string | undefined, alg: string): Promise<JWK> {
  return { ...(await exportJWK(pair.publicKey)), ...(kid === undefined ? {} : { kid }), alg, use: 'sig' };
}

function sign(claims: JWTPayload, key: KeyPair['privateKey'] | Uint8Array, header: Record<string, unknown>): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'player-1', iat: now(), exp: now() + 3600, ...claims })
    .setProtectedHeader({ alg: 'RS256', ...header })
    .sign(key);
}

describe('verifyProviderToken', () => {
  const pairs = new Map<string, KeyPair>();
  let keys: ProviderKeySet;
  const check = () => ({ keys, issuer: ISSUER, audience: AUDIENCE, clockTolerance: 30 });

  beforeAll(async () => {
    const algorithms = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];
    for (const alg of algorithms) pairs.set(alg, await generateKeyPair(alg, { extractable: true }));
    const set = { keys: await Promise.all(algorithms.map((alg) => publicJwk(pairs.get(alg)!, `key-${alg}`, alg))) };
    keys = new ProviderKeySet(() => Promise.resolve(set), { cacheMs: 60_000, cooldownMs: 0 });
  });

  it.each(['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'])('accepts a %s token signed by a key of the set, every time', async (alg) => {
    const token = await sign({ sub: `player-${alg}` }, pairs.get(alg)!.privateKey, { alg, kid: `key-${alg}` });
    for (let time = 0; time < 2; time++) {
      await expect(verifyProviderToken(token, check())).resolves.toMatchObject({ sub: `player-${alg}`, iss: ISSUER, aud: AUDIENCE });
    }
  });

  it('refuses a token signed by another key under a published kid', async () => {
    const impostor = await generateKeyPair('RS256');
    const token = await sign({}, impostor.privateKey, { kid: 'key-RS256' });
    await expect(verifyProviderToken(token, check())).rejects.toThrow(new ProviderTokenRejected('is not valid'));
  });

  it('refuses a key of the set used with an algorithm its type does not allow', async () => {
    // An RS256 signature presented as ES256 under the RSA key's kid: the set has no ES256 key there.
    const token = await sign({}, pairs.get('RS256')!.privateKey, { kid: 'key-RS256' });
    const [, payload, signature] = token.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'key-RS256' })).toString('base64url');
    await expect(verifyProviderToken(`${header}.${payload}.${signature}`, check())).rejects.toBeInstanceOf(UnpublishedKey);
  });

  it('refuses symmetric and unsigned tokens before looking for a key', async () => {
    const hs256 = await sign({}, new TextEncoder().encode('s'.repeat(32)), { alg: 'HS256', kid: 'key-RS256' });
    await expect(verifyProviderToken(hs256, check())).rejects.toThrow(
      new ProviderTokenRejected('is signed with an algorithm not accepted'),
    );
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'x', exp: now() + 60 })).toString('base64url')}.`;
    await expect(verifyProviderToken(none, check())).rejects.toThrow(new ProviderTokenRejected('is signed with an algorithm not accepted'));
    await expect(verifyProviderToken('not-a-token', check())).rejects.toThrow(new ProviderTokenRejected('is not a JWT'));
  });

  it('refuses a critical header it does not implement', async () => {
    // jose will not sign one, so the header is swapped in: the check comes before the signature's.
    const [, payload, signature] = (await sign({}, pairs.get('RS256')!.privateKey, { kid: 'key-RS256' })).split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'key-RS256', crit: ['ext'], ext: true })).toString('base64url');
    await expect(verifyProviderToken(`${header}.${payload}.${signature}`, check())).rejects.toThrow(
      new ProviderTokenRejected('names a critical header this server does not implement'),
    );
  });

  it.each([
    ['has expired', { iat: now() - 7200, exp: now() - 3600 }],
    ['has a claim that is not accepted: nbf', { nbf: now() + 600 }],
    ['has a claim that is not accepted: iss', { iss: 'https://evil.example' }],
    ['has a claim that is not accepted: aud', { aud: 'another-game' }],
    ['has a claim that is not accepted: exp', { exp: undefined }],
  ])('refuses a token that %s', async (reason, claims) => {
    for (const alg of ['RS256', 'EdDSA']) {
      const token = await sign(claims, pairs.get(alg)!.privateKey, { alg, kid: `key-${alg}` });
      await expect(verifyProviderToken(token, check())).rejects.toThrow(new ProviderTokenRejected(reason));
    }
  });

  it('allows the clock tolerance on exp', async () => {
    const token = await sign({ exp: now() - 10 }, pairs.get('ES256')!.privateKey, { alg: 'ES256', kid: 'key-ES256' });
    await expect(verifyProviderToken(token, check())).resolves.toMatchObject({ sub: 'player-1' });
  });

  it('names an unknown kid apart (UnpublishedKey), for the caller to tell from a bad token', async () => {
    const token = await sign({}, pairs.get('RS256')!.privateKey, { kid: 'never-published' });
    await expect(verifyProviderToken(token, check())).rejects.toBeInstanceOf(UnpublishedKey);
  });
});
