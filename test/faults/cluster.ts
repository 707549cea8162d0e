import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { loadDevIdentityProvider } from '../../src/auth/providers/dev-identity-provider.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../src/database/embedded-postgres.js';
import type { TokenBody } from '../support/api-types.js';
import { freePort } from '../support/free-port.js';
import { PgBouncer } from '../support/pgbouncer.js';
import { RedisServer } from '../support/redis-server.js';
import { StreamingReplica } from '../support/streaming-replica.js';

/**
 * A small production-like deployment on this machine: one PostgreSQL and several identical service
 * instances (the built dist/src/main.js, each a process of its own on its own port), as several
 * instances behind a load balancer would run. The database can be stopped and started again on its
 * port, and instances killed and restarted, to see what clients and data go through.
 */
const ROOT = process.cwd();
const JWT_SECRET = 'faults-test-secret-that-is-long-enough-000';

export interface Instance {
  index: number;
  port: number;
  url: string;
  process: ChildProcess;
  output: string;
  exited: Promise<number | null>;
}

export class Cluster {
  readonly instances: Instance[] = [];
  private database!: EmbeddedDatabase;
  private databasePort!: number;
  private dataDir!: string;
  db!: pg.Pool;

  /** With `engines.pgbouncer`: the transaction-pooling PgBouncer the instances reach PostgreSQL through. */
  pgbouncer: PgBouncer | undefined;
  /** With `engines.redis`: the Redis of the instances' REDIS_URL. */
  redis: RedisServer | undefined;
  /** With `engines.replica`: a streaming replica, the instances' DATABASE_REPLICA_URLS. */
  replica: StreamingReplica | undefined;

  private constructor(
    private readonly extraEnvironment: Record<string, string>,
    private readonly nodeFlags: string[],
  ) {}

  /** `nodeFlags`: the Node.js flags the instances start with (production's, to measure memory as it runs). */
  static async start(
    instanceCount: number,
    environment: Record<string, string> = {},
    engines: { pgbouncer?: boolean; redis?: boolean; replica?: boolean } = {},
    nodeFlags: string[] = [],
  ): Promise<Cluster> {
    const cluster = new Cluster(environment, nodeFlags);
    await mkdir(join(ROOT, '.data'), { recursive: true });
    cluster.dataDir = await mkdtemp(join(ROOT, '.data', 'faults-'));
    cluster.databasePort = await freePort();
    await cluster.startDatabase();
    if (engines.pgbouncer) cluster.pgbouncer = await PgBouncer.start(cluster.database.url);
    if (engines.redis) cluster.redis = await RedisServer.start();
    if (engines.replica) {
      cluster.replica = await StreamingReplica.start(cluster.database, join(cluster.dataDir, 'postgres'), join(cluster.dataDir, 'replica'));
    }
    cluster.db = new pg.Pool({ connectionString: cluster.database.url, max: 4 });
    // A pool client that loses its connection during an outage must not crash the test process.
    cluster.db.on('error', () => undefined);
    // Started together on purpose: the migration lock must let exactly one of them migrate.
    await Promise.all(Array.from({ length: instanceCount }, (_, index) => cluster.startInstance(index)));
    return cluster;
  }

  async startDatabase(): Promise<void> {
    this.database = await startEmbeddedPostgres({ directory: join(this.dataDir, 'postgres'), port: this.databasePort });
  }

  /** Stops PostgreSQL (fast shutdown: clients are disconnected, committed data stays). */
  async stopDatabase(): Promise<void> {
    await this.database.stop();
  }

  async startInstance(index: number): Promise<Instance> {
    const port = this.instances[index]?.port ?? (await freePort());
    let output = '';
    const child = spawn(process.execPath, [...this.nodeFlags, join(ROOT, 'dist/src/main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'development',
        PORT: String(port),
        HOST: '127.0.0.1',
        // Through PgBouncer when there is one; what needs a session of its own goes direct.
        DATABASE_URL: this.pgbouncer?.urlFor(this.database.url) ?? this.database.url,
        ...(this.pgbouncer ? { DATABASE_DIRECT_URL: this.database.url } : {}),
        ...(this.redis ? { REDIS_URL: this.redis.url } : {}),
        ...(this.replica ? { DATABASE_REPLICA_URLS: this.replica.url } : {}),
        DATA_DIR: join(this.dataDir, 'data'),
        JWT_SECRET,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_ENABLED: 'false',
        // Every player of a fault test signs in from 127.0.0.1.
        GUEST_ACCOUNTS_PER_ADDRESS: '0',
        ...this.extraEnvironment,
      },
    });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const instance: Instance = {
      index,
      port,
      url: `http://127.0.0.1:${port}`,
      process: child,
      get output() {
        return output;
      },
      exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    };
    this.instances[index] = instance;
    await waitUntil(
      async () => (await fetch(`${instance.url}/health/ready`)).ok,
      60_000,
      () => {
        if (child.exitCode !== null) throw new Error(`instance ${index} exited early:\n${output}`);
      },
    );
    return instance;
  }

  /** The DATA_DIR every instance shares (the local media store is its `media/`). */
  get dataDirectory(): string {
    return join(this.dataDir, 'data');
  }

  /** Signs `subject` in through the development identity provider (shared key pair in DATA_DIR). */
  async signIn(subject: string, instance = this.instances[0]): Promise<string> {
    return (await this.openSession(subject, instance)).token;
  }

  /** Signs `subject` in: a new player session, with its refresh token. */
  async openSession(subject: string, instance = this.instances[0]): Promise<TokenBody> {
    const response = await this.signInResponse(subject, instance);
    if (!response.ok) throw new Error(`sign-in of ${subject} failed: ${response.status} ${await response.text()}`);
    return (await response.json()) as TokenBody;
  }

  /** The raw answer to a sign-in of `subject` (a banned one is refused). */
  async signInResponse(subject: string, instance = this.instances[0]): Promise<Response> {
    return fetch(`${instance.url}/auth/idp1`, { headers: { authorization: `jwt ${await this.providerToken(subject)}` } });
  }

  /** An idp1 token of `subject`, from the development identity provider the instances share. */
  async providerToken(subject: string): Promise<string> {
    const provider = await loadDevIdentityProvider(join(this.dataDir, 'data'));
    return provider.issueToken(subject);
  }

  async stop(): Promise<void> {
    for (const instance of this.instances) {
      if (instance.process.exitCode === null && instance.process.signalCode === null) {
        instance.process.kill('SIGTERM');
        await instance.exited;
      }
    }
    await this.db?.end().catch(() => undefined);
    await this.pgbouncer?.remove();
    await this.redis?.stop();
    await this.replica?.remove();
    await this.database?.stop();
    await rm(this.dataDir, { recursive: true, force: true });
  }
}

/** The resident set of a process now and at its peak, in MiB (Linux: /proc/<pid>/status). */
export async function residentMemory(pid: number): Promise<{ now: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
  return { now: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

export interface Reply {
  status: number;
  body: any;
  /** Milliseconds from sending to the whole answer. */
  took: number;
}

/** One JSON request; a network failure (refused, reset) is reported as status 0 with the error code. */
export async function call(base: string, method: string, path: string, token?: string, body?: unknown, timeoutMs = 20_000): Promise<Reply> {
  const started = Date.now();
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `jwt ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text, the checks will say so
    }
    return { status: response.status, body: parsed, took: Date.now() - started };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { status: 0, body: { error: cause?.code ?? (error as Error).name }, took: Date.now() - started };
  }
}

/**
 * A POST on a connection of its own (no keep-alive pool), so that the server either accepted this very
 * request or refused it: what a graceful-shutdown test needs to tell apart.
 */
export function postOnNewConnection(
  base: string,
  path: string,
  token: string,
  idempotencyKey: string,
  body: unknown,
): Promise<{ key: string; status: number; body: { code?: string } }> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const outgoing = request(
      `${base}${path}`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `jwt ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'idempotency-key': idempotencyKey,
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          let parsed: { code?: string };
          try {
            parsed = JSON.parse(text) as { code?: string };
          } catch {
            parsed = { code: 'NOT_JSON' };
          }
          resolve({ key: idempotencyKey, status: response.statusCode ?? 0, body: parsed });
        });
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ key: idempotencyKey, status: 0, body: { code: error.code } }));
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ key: idempotencyKey, status: 0, body: { code: error.code ?? 'network' } }),
    );
    outgoing.end(payload);
  });
}

/** Counts replies by status, e.g. { 200: 120, 409: 30, "0 ECONNREFUSED": 4 } (0: no HTTP answer, and why). */
export function tally(replies: Array<Pick<Reply, 'status' | 'body'>>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const reply of replies) {
    const key = reply.status === 0 ? `0 ${reply.body?.error ?? reply.body?.code ?? 'network'}` : String(reply.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, onPoll?: () => void): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    onPoll?.();
    try {
      if (await check()) return Date.now() - started;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
