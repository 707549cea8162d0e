import { jest } from '@jest/globals';
import { createSecretKey } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { verifyAccessToken } from './access-token.js';

const jwtWith = (secret: string) =>
  new JwtService({ secret: createSecretKey(Buffer.from(secret)), verifyOptions: { algorithms: ['HS256'] } });
const claims = { sub: 'user', roles: [], sid: '00000000-0000-4000-8000-000000000000' };

describe('verifyAccessToken', () => {
  it('checks a token once and answers its claims again until it expires', async () => {
    const jwt = jwtWith('a secret that is long enough for the tests 0001');
    const token = await jwt.signAsync(claims, { expiresIn: 60 });
    const verify = jest.spyOn(jwt, 'verifyAsync');
    const first = await verifyAccessToken(jwt, {}, token);
    const second = await verifyAccessToken(jwt, {}, token);
    expect(second).toEqual(first);
    expect(first).toMatchObject(claims);
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('refuses a remembered token from its exp second on, by the wall clock jsonwebtoken uses', async () => {
    const jwt = jwtWith('a secret that is long enough for the tests 0002');
    const token = await jwt.signAsync(claims, { expiresIn: 60 });
    await expect(verifyAccessToken(jwt, {}, token)).resolves.toMatchObject(claims);
    const { exp } = jwt.decode<{ exp: number }>(token);
    // Only the wall clock moves: the cache's monotonic ttl alone would still hold the token.
    const now = jest.spyOn(Date, 'now').mockReturnValue(exp * 1000 - 1);
    try {
      await expect(verifyAccessToken(jwt, {}, token)).resolves.toMatchObject(claims);
      now.mockReturnValue(exp * 1000);
      await expect(verifyAccessToken(jwt, {}, token)).rejects.toThrow(/expired/);
    } finally {
      now.mockRestore();
    }
  });

  it('never takes a token checked with one secret for one of another, nor remembers a refused one', async () => {
    const issuer = jwtWith('a secret that is long enough for the tests 0003');
    const other = jwtWith('another secret, long enough for the tests 0004');
    const token = await issuer.signAsync(claims, { expiresIn: 60 });
    await expect(verifyAccessToken(issuer, {}, token)).resolves.toMatchObject(claims);
    await expect(verifyAccessToken(other, {}, token)).rejects.toThrow(/signature/);
    await expect(verifyAccessToken(other, {}, token)).rejects.toThrow(/signature/);
  });
});
