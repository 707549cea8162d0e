import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, open, readFile, rename, rm, stat } from 'node:fs/promises';

/** A PostgreSQL role and its password. */
export interface RoleCredentials {
  user: string;
  password: string;
}

/** The passwords of an embedded cluster, made at its first start and kept beside it. */
export interface EmbeddedCredentials {
  /** The cluster's superuser: the launcher, tests and tools that need an administrator. */
  superuser: RoleCredentials;
  /** The role the service and its tools connect as: owner of the game's database, nothing more. */
  service: RoleCredentials;
}

export const SUPERUSER = 'postgres';
export const SERVICE_ROLE = 'game_backend';

/** Beside the cluster's folder, in the data folder (DATA_DIR), readable by the service's user only. */
export const credentialsFile = (directory: string) => `${directory}.credentials.json`;

export function newCredentials(): EmbeddedCredentials {
  // base64url: the passwords go into connection URLs, PgBouncer's auth file and primary_conninfo as they are.
  const password = () => randomBytes(32).toString('base64url');
  return { superuser: { user: SUPERUSER, password: password() }, service: { user: SERVICE_ROLE, password: password() } };
}

/** The credentials kept beside the cluster in `directory`; undefined when there are none yet. */
export async function readCredentials(directory: string): Promise<EmbeddedCredentials | undefined> {
  const file = credentialsFile(directory);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const credentials = parseCredentials(text);
  if (!credentials)
    throw new Error(`${file} is not a credentials file of the embedded PostgreSQL: restore it from a backup of the data folder`);
  // A copy restored with looser permissions would let other users of the machine read the passwords.
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  return credentials;
}

function parseCredentials(text: string): EmbeddedCredentials | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<Record<keyof EmbeddedCredentials, Partial<RoleCredentials>>>;
    const role = (value: Partial<RoleCredentials> | undefined) =>
      typeof value?.user === 'string' && typeof value.password === 'string' && value.password.length > 0
        ? { user: value.user, password: value.password }
        : undefined;
    const superuser = role(parsed.superuser);
    const service = role(parsed.service);
    return superuser && service ? { superuser, service } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the credentials with mode 0600, synced and renamed into place: losing the file would lock the
 * service out of its own cluster, so a crash leaves either the old file or the whole new one.
 */
export async function saveCredentials(directory: string, credentials: EmbeddedCredentials): Promise<void> {
  const file = credentialsFile(directory);
  const partial = `${file}.${process.pid}.partial`;
  await rm(partial, { force: true });
  const handle = await open(partial, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(credentials, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, file);
}

const SCRAM_ITERATIONS = 4096;

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802, RFC 7677), in its
 * `pg_authid.rolpassword` format. PostgreSQL stores a verifier it is given as it is, so the password
 * itself never reaches the server: not its logs, not initdb's password file.
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = SCRAM_ITERATIONS): string {
  const { storedKey, serverKey } = scramKeys(password, salt, iterations);
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** Whether `verifier` (a `pg_authid.rolpassword`, null for none) accepts `password`. */
export function verifierAccepts(verifier: string | null, password: string): boolean {
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(verifier ?? '');
  if (!match) return false;
  const { storedKey, serverKey } = scramKeys(password, Buffer.from(match[2], 'base64'), Number(match[1]));
  const expected = Buffer.concat([Buffer.from(match[3], 'base64'), Buffer.from(match[4], 'base64')]);
  const actual = Buffer.concat([storedKey, serverKey]);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function scramKeys(password: string, salt: Buffer, iterations: number): { storedKey: Buffer; serverKey: Buffer } {
  // PostgreSQL runs SASLprep on the password first, which leaves the ASCII passwords made here as they are.
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  return {
    storedKey: createHash('sha256').update(clientKey).digest(),
    serverKey: createHmac('sha256', salted).update('Server Key').digest(),
  };
}
