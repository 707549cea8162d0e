import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { credentialsFile, type EmbeddedCredentials } from '../src/database/embedded-credentials.js';
import type { ItemBody, TokenBody } from './support/api-types.js';
import { productionNodeFlags } from './support/production-flags.js';

/**
 * The service as an operator runs it: the built `dist/src/main.js` in a process of its own, with the
 * embedded PostgreSQL in a fresh data directory, as `npm start` does on a fresh clone.
 */
const root = process.cwd();
const main = join(root, 'dist/src/main.js');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface RunningService {
  process: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Every service a test started, so that a failed test does not leave one running (and jest waiting). */
const started: ChildProcess[] = [];

function startService(environment: Record<string, string>): RunningService {
  let output = '';
  const child = spawn(process.execPath, [...productionNodeFlags(), main], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...environment },
  });
  started.push(child);
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { process: child, output: () => output, exited };
}

/**
 * Who the service is connected to its embedded PostgreSQL as, asked as the superuser with the
 * password kept beside the cluster, which only this user may read; the old fixed password is refused.
 */
async function embeddedConnections(cluster: string): Promise<Array<{ role: string; rolsuper: boolean }>> {
  expect((await stat(credentialsFile(cluster))).mode & 0o777).toBe(0o600);
  const { superuser } = JSON.parse(readFileSync(credentialsFile(cluster), 'utf8')) as EmbeddedCredentials;
  const port = Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')[3]);
  const connect = async (password: string) => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: superuser.user, password, database: 'game_backend' });
    await client.connect();
    return client;
  };
  await expect(connect('embedded')).rejects.toMatchObject({ code: '28P01' });
  const admin = await connect(superuser.password);
  try {
    const { rows } = await admin.query<{ role: string; rolsuper: boolean }>(
      `SELECT DISTINCT a.usename AS role, r.rolsuper FROM pg_stat_activity a JOIN pg_roles r ON r.rolname = a.usename
        WHERE a.application_name LIKE 'game-backend%'`,
    );
    return rows;
  } finally {
    await admin.end();
  }
}

async function waitForReady(port: number, service: RunningService): Promise<void> {
  // Generous: on a loaded 2-core machine the first start (initdb, migrations) can take a while.
  for (let attempt = 0; attempt < 900; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    if (service.process.exitCode !== null) throw new Error(`service exited early:\n${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`service not ready after 90 s:\n${service.output()}`);
}

describe('the service as a process', () => {
  it('is started with the same Node.js flags by npm run start:prod, the Dockerfile and the systemd unit', () => {
    const flags = productionNodeFlags();
    expect(flags).toEqual(expect.arrayContaining([expect.stringMatching(/^--max-old-space-size=\d+$/)]));
    const dockerfile = /^CMD \[(.*)\]$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))![1];
    expect(JSON.parse(`[${dockerfile}]`)).toEqual(['node', ...flags, 'dist/src/main.js']);
    const unit = /^ExecStart=(.*)$/m.exec(readFileSync(join(root, 'deploy/game-backend.service'), 'utf8'))![1];
    expect(unit.split(/\s+/)).toEqual(['/usr/bin/node', ...flags, '/opt/game-backend/dist/src/main.js']);
  });

  let dataDir: string;

  beforeAll(async () => {
    // Build what `npm start` would run: a stale dist/ from an earlier build would test old code.
    execFileSync('npx', ['nest', 'build'], { cwd: root, stdio: 'pipe' });
    // Under the project's .data/ folder, as a default DATA_DIR would be (the embedded server makes
    // the folder reachable for its postgres user).
    await mkdir(join(root, '.data'), { recursive: true });
    dataDir = await mkdtemp(join(root, '.data', 'startup-test-'));
  }, 120_000);

  // After each test: a test that fails half-way must not leave its instance holding DATA_DIR for the next.
  afterEach(async () => {
    const running = started.filter((child) => child.exitCode === null && child.signalCode === null);
    await Promise.all(running.map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM'))));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses to start in production without JWT_SECRET and a provider, naming them', async () => {
    const service = startService({ NODE_ENV: 'production', DATA_DIR: dataDir });
    expect(await service.exited).toBe(1);
    expect(service.output()).toContain('JWT_SECRET is required when NODE_ENV=production');
    expect(service.output()).toContain('IDP1_JWKS_URL');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false); // stopped before touching anything
  });

  it('starts on embedded PostgreSQL, signs in a dev token, shuts down on SIGTERM and keeps its data', async () => {
    const port = await freePort();
    const environment = { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
    const base = `http://127.0.0.1:${port}`;

    // Every log line the service writes, down to trace: none may carry a token or a hash of one.
    const first = startService({ ...environment, LOG_LEVEL: 'trace' });
    await waitForReady(port, first);
    expect(first.output()).toContain(`embedded PostgreSQL in ${join(dataDir, 'postgres')}`);
    expect(await embeddedConnections(join(dataDir, 'postgres'))).toEqual([{ role: 'game_backend', rolsuper: false }]);
    expect((await fetch(`${base}/docs`)).status).toBe(200);

    const providerToken = execFileSync('npx', ['tsx', 'scripts/dev-token.ts', 'admin'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir },
    })
      .toString()
      .trim();
    const signIn = await fetch(`${base}/auth/idp1`, { headers: { authorization: `jwt ${providerToken}` } });
    expect(signIn.status).toBe(200);
    const { token, refreshToken } = (await signIn.json()) as TokenBody;
    const post = (path: string, body?: unknown, bearer?: string) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(bearer && { authorization: `jwt ${bearer}` }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const refreshed = (await (await post('/auth/refresh', { refreshToken })).json()) as TokenBody;
    expect(refreshed.token).toEqual(expect.any(String));
    // Refused ones are logged too (as warnings): a replay that signs the session out, a garbage token.
    const other = (await (await fetch(`${base}/auth/idp1`, { headers: { authorization: `jwt ${providerToken}` } })).json()) as TokenBody;
    const otherRefreshed = (await (await post('/auth/refresh', { refreshToken: other.refreshToken })).json()) as TokenBody;
    expect((await post('/auth/refresh', { refreshToken: 'x'.repeat(43) })).status).toBe(401);
    const ticket = ((await (await post('/realtime/tickets', undefined, token)).json()) as { ticket: string }).ticket;
    expect((await post('/auth/logout', undefined, otherRefreshed.token)).status).toBe(204);
    const secrets = [
      refreshToken,
      refreshed.token,
      refreshed.refreshToken,
      other.token,
      other.refreshToken,
      otherRefreshed.token,
      otherRefreshed.refreshToken,
      ticket,
    ];
    const hashes = secrets.map((secret) => createHash('sha256').update(secret).digest('base64url'));
    const created = await fetch(`${base}/items`, {
      method: 'POST',
      headers: { authorization: `jwt ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Survivor' }),
    });
    expect(created.status).toBe(201);
    const item = (await created.json()) as ItemBody;

    first.process.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    // The embedded server was stopped cleanly, not left running on the data folder.
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(first.output()).toContain('"url":"/auth/refresh"');
    expect(first.output()).not.toContain(providerToken);
    expect(first.output()).not.toContain(token);
    for (const secret of [...secrets, ...hashes]) expect(first.output()).not.toContain(secret);

    const second = startService(environment);
    await waitForReady(port, second);
    // The first instance's token still counts: both sign with the secret kept in DATA_DIR. (A fresh
    // DATA_DIR's first start once gave one of its two readers of that secret the file before it was
    // written, and signed with an empty key; on a loaded machine this then answered 401: dev-jwt-secret.ts.)
    const found = await fetch(`${base}/items/${item.uid}`, { headers: { authorization: `jwt ${token}` } });
    // Status and body together: a refusal shows its error code.
    expect({ status: found.status, body: await found.json() }).toMatchObject({ status: 200, body: { uid: item.uid, name: 'Survivor' } });

    // The migration CLI, run while the service runs, works on the service's database, and leaves it running.
    const migrations = execFileSync('npx', ['typeorm', 'migration:show', '-d', 'dist/ormconfig.js'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
    }).toString();
    expect(migrations).toMatch(/\[X\] \d+ Foundation/);
    expect(migrations).not.toMatch(/\[ \]/);
    const afterCli = await fetch(`${base}/items/${item.uid}`, { headers: { authorization: `jwt ${token}` } });
    expect(afterCli.status).toBe(200);
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    second.process.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 240_000);

  it('refuses a second instance on the same DATA_DIR, naming the first, which keeps serving', async () => {
    const [port, otherPort] = [await freePort(), await freePort()];
    const first = startService({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
    await waitForReady(port, first);

    const second = startService({ DATA_DIR: dataDir, PORT: String(otherPort), HOST: '127.0.0.1' });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`belongs to process ${first.process.pid}`);
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);

    // Killed outright, the first leaves its PostgreSQL running with nobody to stop it: the next start
    // stops that orphan and serves.
    first.process.kill('SIGKILL');
    await first.exited;
    const third = startService({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
    await waitForReady(port, third);
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    third.process.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  }, 240_000);

  it('compacts its heap once quiet, gives the memory back and counts it in /metrics', async () => {
    const port = await freePort();
    const service = startService({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', MEMORY_COMPACT_IDLE: '1' });
    await waitForReady(port, service);
    const compacted = /heap compacted in \d+ ms, resident (\d+) MB -> (\d+) MB/;
    for (let waited = 0; !compacted.test(service.output()) && waited < 30_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [, before, after] = compacted.exec(service.output()) ?? [];
    // What the start-up left behind (module sources compiled once, the OpenAPI document's making).
    expect(Number(before) - Number(after)).toBeGreaterThan(5);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^memory_compaction_pause_seconds_count 1$/m);
    expect(Number(/^memory_compaction_freed_bytes_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(5 * 1024 * 1024);
    service.process.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 240_000);

  it('changes nothing outside DATA_DIR, even where its PostgreSQL cannot reach the folder', async () => {
    const parent = await mkdtemp(join(root, '.data', 'private-')); // 0700, as mkdtemp makes it
    const modeBefore = (await stat(parent)).mode;
    const port = await freePort();
    const service = startService({ DATA_DIR: join(parent, 'data'), PORT: String(port), HOST: '127.0.0.1' });
    try {
      if (process.getuid?.() === 0) {
        // As root, PostgreSQL runs as the postgres user, which cannot enter `parent`: the service says so.
        expect(await service.exited).toBe(1);
        expect(service.output()).toContain(`${parent} is not searchable by others`);
      } else {
        // Otherwise PostgreSQL runs as this user, who may enter it.
        await waitForReady(port, service);
      }
      expect((await stat(parent)).mode).toBe(modeBefore);
    } finally {
      if (service.process.exitCode === null) {
        service.process.kill('SIGTERM');
        await service.exited;
      }
      await rm(parent, { recursive: true, force: true });
    }
  }, 240_000);
});
