import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../config/environment.js';

/**
 * Outside production JWT_SECRET may be left unset: a random secret is kept in the data directory, so
 * tokens survive restarts of a development server. Production refuses to start without JWT_SECRET.
 */
export async function loadOrCreateDevJwtSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'dev-jwt-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    await writeFile(file, secret, { flag: 'wx', mode: 0o600 });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readFile(file, 'utf8')).trim();
  }
}

/** The key our tokens are signed with: JWT_SECRET, or (outside production) the one kept in the data directory. */
export async function jwtSecretOf(config: Pick<AppConfig, 'jwt' | 'dataDir'>): Promise<string> {
  return config.jwt.secret ?? (await loadOrCreateDevJwtSecret(config.dataDir));
}
