import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { AppConfig } from '../config/environment.js';
import { createFileOnce } from '../common/create-file-once.js';

/** Shorter than this, a kept secret was cut short (a write an older version left half-done): never sign with it. */
const MIN_SECRET_LENGTH = 32;

/**
 * Outside production JWT_SECRET may be left unset: a random secret is kept in the data directory, so
 * tokens survive restarts of a development server. Production refuses to start without JWT_SECRET.
 * Two providers ask for it at once on a fresh DATA_DIR (the token signer and the device ids): both get
 * the one secret kept (createFileOnce).
 */
export async function loadOrCreateDevJwtSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'dev-jwt-secret');
  const secret = (await createFileOnce(file, () => randomBytes(48).toString('base64url'))).trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `${file} holds no usable secret (${secret.length} characters): delete it and start again (tokens signed until now ` +
        'stop working), or set JWT_SECRET',
    );
  }
  return secret;
}

/** The key our tokens are signed with: JWT_SECRET, or (outside production) the one kept in the data directory. */
export async function jwtSecretOf(config: Pick<AppConfig, 'jwt' | 'dataDir'>): Promise<string> {
  return config.jwt.secret ?? (await loadOrCreateDevJwtSecret(config.dataDir));
}
