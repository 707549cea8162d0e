import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { decodeJwt } from 'jose';
import { Logger } from 'nestjs-pino';
import pg from 'pg';
import { AppModule } from '../../src/app.module.js';
import { configureApp, createFastifyAdapter } from '../../src/app.setup.js';
import { loadDevIdentityProvider } from '../../src/auth/providers/dev-identity-provider.js';
import { parseEnvironment } from '../../src/config/environment.js';
import { createRootLogger, ROOT_LOGGER } from '../../src/logging.js';
import { createOpenApiDocument } from '../../src/openapi/openapi.document.js';
import type { PersonaBody, TokenBody } from './api-types.js';
import type { CapturedLogs } from './captured-logs.js';
import { ApiContract } from './contract.js';

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface RequestOptions {
  /** Our JWT, sent as `Authorization: jwt <token>`. */
  token?: string;
  /** A JSON body (serialised) or a raw string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The variables every test app is configured from, unless a test overrides them (undefined removes
 * one). The process's own environment plays no part: each app gets its configuration as the service
 * does, parsed once (AppModule.forRoot).
 */
const BASE_ENVIRONMENT: Record<string, string | undefined> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  // Tests run the matchmaker and the lobby sweep themselves (MatchmakerService.runOnce,
  // SessionLivenessService.sweepOnce), so that matches and removals are deterministic.
  MATCHMAKER_ENABLED: 'false',
  // Likewise the leaderboard worker (LeaderboardWorker.runOnce); a period closes as soon as it ends.
  LEADERBOARD_WORKER_ENABLED: 'false',
  LEADERBOARD_CLOSE_DELAY: '0',
  MATCHMAKER_WEIGHTS: undefined,
  // Test files share DATA_DIR/media and each has a database of its own: a sweep would take the others'
  // files for orphans. Tests sweep themselves (MediaSweeper.sweepOnce).
  MEDIA_SWEEP_INTERVAL: '0',
  // Suites send many requests from one address; test/limits.e2e-spec.ts turns rate limiting on.
  RATE_LIMIT_ENABLED: 'false',
  // Likewise the guest accounts one address makes; test/account.e2e-spec.ts bounds them.
  GUEST_ACCOUNTS_PER_ADDRESS: '0',
  // Suites set up their crowds at once (hundreds of sign-ins in one Promise.all), which load shedding
  // would answer 503 OVERLOADED; test/overload.e2e-spec.ts bounds it.
  HTTP_REQUESTS_IN_FLIGHT: '100000',
  // Jest's process holds every suite's apps: a compaction would pause them all whenever a test waits;
  // test/startup.e2e-spec.ts measures it on the service as a process of its own.
  MEMORY_COMPACT_IDLE: '0',
};

/**
 * The real AppModule on the Fastify adapter, configured as main.ts does, over a database of its own
 * cloned from the migrated template (global-setup.mjs). Requests go through `app.inject()`.
 */
export interface SignedInPlayer {
  name: string;
  token: string;
  uid: string;
}

/** A guest signed in on a device: the device id the game keeps, the tokens, and the user. */
export interface DeviceSession extends TokenBody {
  deviceId: string;
  uid: string;
}

export class TestApp {
  /** The OpenAPI document every answer is checked against (one per test file: it does not depend on configuration). */
  private static contract: ApiContract | undefined;
  private playersSignedIn = 0;

  private constructor(
    readonly app: NestFastifyApplication,
    /** The app's database, as the service's role: what the app may do, a test may do beside it. */
    readonly database: pg.Pool,
    /** Its URL (the app's DATABASE_URL), for tools a test runs on it; another app started with it is a second instance. */
    readonly databaseUrl: string,
    private readonly databaseName: string,
  ) {}

  /**
   * `listen`: also serve on a loopback port (`baseUrl`), for clients that need a real socket (the
   * realtime WebSocket); requests through `request()` use `app.inject()` either way.
   */
  static async start(
    environment: Record<string, string | undefined> = {},
    options: { listen?: boolean; logs?: CapturedLogs } = {},
  ): Promise<TestApp> {
    const databaseName = `test_${randomBytes(6).toString('hex')}`;
    const url = new URL(process.env.TEST_DATABASE_URL!);
    const admin = new pg.Client(process.env.TEST_DATABASE_ADMIN_URL);
    await admin.connect();
    try {
      // The template's objects belong to the service's role already; the database must too.
      await admin.query(
        `CREATE DATABASE ${databaseName} TEMPLATE ${process.env.TEST_TEMPLATE_DATABASE} OWNER ${admin.escapeIdentifier(decodeURIComponent(url.username))}`,
      );
    } finally {
      await admin.end();
    }
    url.pathname = `/${databaseName}`;

    const config = parseEnvironment({
      ...BASE_ENVIRONMENT,
      DATA_DIR: process.env.TEST_DATA_DIR,
      DATABASE_URL: url.toString(),
      ...environment,
    });

    const builder = Test.createTestingModule({ imports: [AppModule.forRoot(config)] });
    // Every line down to trace, as main.ts wires it: request lines and Nest's own logs through one pino.
    if (options.logs) builder.overrideProvider(ROOT_LOGGER).useValue(createRootLogger('trace', options.logs.stream));
    const moduleRef = await builder.compile();
    const app = moduleRef.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), {
      bodyParser: false,
      logger: ['error', 'fatal'],
    });
    if (options.logs) app.useLogger(app.get(Logger));
    configureApp(app);
    if (options.listen) await app.listen(0, '127.0.0.1');
    else await app.init();
    await app.getHttpAdapter().getInstance().ready();
    TestApp.contract ??= new ApiContract(createOpenApiDocument(app));
    const database = new pg.Pool({ connectionString: url.toString(), max: 2 });
    // An idle connection that PostgreSQL terminates (DROP DATABASE … WITH (FORCE) when a file closes)
    // is reported as a pool 'error' event; unhandled, it would fail whatever test runs next.
    database.on('error', () => undefined);
    return new TestApp(app, database, url.toString(), databaseName);
  }

  /** `http://127.0.0.1:<port>` of an app started with `listen`. */
  get baseUrl(): string {
    const address = this.app.getHttpServer().address() as { port: number } | null;
    if (!address) throw new Error('this test app does not listen: start it with { listen: true }');
    return `http://127.0.0.1:${address.port}`;
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `jwt ${options.token}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await this.app.inject({ method: method as 'GET', url: path, headers, payload });
    let body: unknown = response.body;
    if (String(response.headers['content-type'] ?? '').includes('json') && response.body !== '') body = response.json();
    const result = { status: response.statusCode, body: body as T, headers: response.headers };
    TestApp.checkContract(method, path, result);
    return result;
  }

  /** Fails the test when the OpenAPI document does not describe this answer (test/support/contract.ts). */
  static checkContract(method: string, url: string, response: TestResponse): void {
    TestApp.contract?.check(method, url, response);
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  /** A token of the development identity provider (idp1), as a real provider would issue it. */
  async providerToken(subject: string, claims?: { name?: string; email?: string }): Promise<string> {
    const provider = await loadDevIdentityProvider(process.env.TEST_DATA_DIR!);
    return provider.issueToken(subject, claims);
  }

  /** Signs `subject` in through /auth/idp1 and returns our JWT. `admin` is an admin by default. */
  async signIn(subject: string): Promise<string> {
    return (await this.openSession(subject)).token;
  }

  /** Signs `subject` in through /auth/idp1 (a new player session): the token, refresh token and lifetime. */
  async openSession(subject: string, headers: Record<string, string> = {}): Promise<TokenBody> {
    const response = await this.get<TokenBody>('/auth/idp1', {
      headers: { ...headers, authorization: `jwt ${await this.providerToken(subject)}` },
    });
    if (response.status !== 200) throw new Error(`sign-in of ${subject} failed: ${JSON.stringify(response.body)}`);
    return response.body;
  }

  /**
   * Signs a guest in with a device id (a new random one unless given): the first sign-in of an id
   * creates its account. The tokens, the device id and the user uid.
   */
  async signInDevice(deviceId: string = randomUUID(), headers: Record<string, string> = {}): Promise<DeviceSession> {
    const response = await this.post<TokenBody>('/auth/device', { deviceId }, { headers });
    if (response.status !== 200) throw new Error(`device sign-in failed: ${response.status} ${JSON.stringify(response.body)}`);
    return { ...response.body, deviceId, uid: decodeJwt(response.body.token).sub! };
  }

  /** Signs `subject` in: their name, our JWT and their user uid (the token's `sub`). */
  async signInPlayer(subject: string): Promise<SignedInPlayer> {
    const token = await this.signIn(subject);
    return { name: subject, token, uid: decodeJwt(token).sub! };
  }

  /** A player nobody has met yet, signed in as `<label>-<n>` (n unique within this app). */
  newPlayer(label = 'player'): Promise<SignedInPlayer> {
    return this.signInPlayer(`${label}-${++this.playersSignedIn}`);
  }

  /** A new player with their default persona. */
  newPlayerWithPersona(label = 'player'): Promise<SignedInPlayer & { personaUid: string }> {
    return this.signInWithPersona(`${label}-${++this.playersSignedIn}`);
  }

  /** A POST that must create a record (201): the record. */
  async created<T>(path: string, body: unknown, token: string): Promise<T> {
    const response = await this.post<T>(path, body, { token });
    expect(response.status).toBe(201);
    return response.body;
  }

  /** A GET that must answer 200: its body. */
  async found<T>(path: string, token: string): Promise<T> {
    const response = await this.get<T>(path, { token });
    expect(response.status).toBe(200);
    return response.body;
  }

  /** How many rows `table` holds now (a refused request must leave it as it was). */
  async countRows(table: string): Promise<number> {
    const { rows } = await this.database.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${table}`);
    return rows[0].count;
  }

  /** Signs in `count` new players at once, named `<label>-<n>` (n unique within this app). */
  signInPlayers(count: number, label = 'player'): Promise<SignedInPlayer[]> {
    return Promise.all(Array.from({ length: count }, () => this.signInPlayer(`${label}-${++this.playersSignedIn}`)));
  }

  /** Signs `subject` in and reads their first persona (a player's first sign-in creates one). */
  async signInWithPersona(subject: string): Promise<SignedInPlayer & { personaUid: string }> {
    const player = await this.signInPlayer(subject);
    const personas = await this.get<PersonaBody[]>('/personas', { token: player.token });
    if (personas.status !== 200) throw new Error(`personas of ${subject}: ${personas.status} ${JSON.stringify(personas.body)}`);
    return { ...player, personaUid: personas.body[0].uid };
  }

  async close(): Promise<void> {
    TestApp.contract?.report();
    await this.app.close();
    await this.database.end();
    const admin = new pg.Client(process.env.TEST_DATABASE_ADMIN_URL);
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${this.databaseName} WITH (FORCE)`).finally(() => admin.end());
  }
}
