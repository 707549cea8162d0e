import { createHash, randomBytes } from 'node:crypto';

/**
 * Opaque bearer secrets the service hands out (refresh tokens, realtime tickets): 256 random bits, and
 * only their hash is stored. A plain SHA-256 is enough for a value with that much entropy: a slow hash
 * protects guessable passwords, and a database leak of these hashes yields nothing to replay.
 */
export function newSecretToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSecretToken(token) };
}

export function hashSecretToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** What a well-formed token looks like (43 base64url characters); anything else is not looked up. */
export const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
