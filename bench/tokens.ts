/**
 * Tokens for the benchmark, minted directly rather than by signing in 200 times:
 *
 * - our JWTs, exactly as AuthService issues them: HS256 with the JWT_SECRET the service is given,
 *   `iss`/`aud` = JWT_ISSUER/JWT_AUDIENCE, `sub` = the user's uid, `sid` = a player session seeded for
 *   them, `roles` = ['user'] or ['user', 'admin'];
 * - idp1 provider tokens (RS256) from a local OpenID-style provider whose JWKS this process serves on
 *   loopback, for GET /auth/idp1 (IDP1_JWKS_URL points at it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** Long enough for any run; the service checks `exp`. */
const LIFETIME = '6h';

export interface AccessTokenSettings {
  secret: string;
  issuer: string;
  audience: string;
}

export function signAccessToken(settings: AccessTokenSettings, user: { uid: string; sessionUid: string }, admin = false): Promise<string> {
  return new SignJWT({ roles: admin ? ['user', 'admin'] : ['user'], sid: user.sessionUid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.uid)
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setIssuedAt()
    .setExpirationTime(LIFETIME)
    .sign(new TextEncoder().encode(settings.secret));
}

export interface LocalProvider {
  issuer: string;
  jwksUrl: string;
  issueToken(subject: string): Promise<string>;
  close(): Promise<void>;
}

/** An idp1 stand-in: an RSA key pair and its JWKS served at http://127.0.0.1:<port>/jwks.json. */
export async function startLocalProvider(): Promise<LocalProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' };
  const body = JSON.stringify({ keys: [publicJwk] });
  const server: Server = createServer((request, response) => {
    if (request.url === '/jwks.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = 'https://idp1.bench.invalid';
  return {
    issuer,
    jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
    issueToken: (subject) =>
      new SignJWT({ name: subject })
        .setProtectedHeader({ alg: 'RS256', kid: 'bench-1' })
        .setIssuer(issuer)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(LIFETIME)
        .sign(privateKey),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
