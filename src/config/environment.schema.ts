import { IsIn, IsOptional, Matches, MinLength, ValidateIf } from 'class-validator';
import { isIP } from 'node:net';
import { BUSY_WORK_PER_SECOND, COMPACTION_MIN_GROWTH_BYTES, QUIET_WORK_PER_SECOND } from '../common/compaction-rule.js';
import { CONNECTIONS_WITHOUT_A_KNOWN_LIMIT, defaultMaxConnections, FILES_KEPT_FREE, openFilesLimit } from './open-files.js';
import { EveryEntry, Flag, Integer, isUrlOf, List, ReadAs, readFlag, readList, ReadWith, redactUrl, Url, Variable } from './variables.js';

/**
 * Every environment variable the service reads, declared once: its type, range, default and meaning.
 * parseEnvironment (environment.ts) validates the environment against it and builds the AppConfig;
 * `npm run config:docs` prints README "Configuration" and `.env.example` from it, in this order.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * What an upload may be by default: what games ship (images, audio, video, fonts, glTF models, JSON,
 * text, archives and opaque bundles). SVG is in, served as an attachment, since icons often are.
 */
const MEDIA_TYPES_DEFAULT = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/svg+xml',
  'audio/*',
  'video/mp4',
  'video/webm',
  'font/*',
  'model/gltf-binary',
  'model/gltf+json',
  'application/json',
  'text/plain',
  'application/zip',
  'application/octet-stream',
].join(',');
const POSTGRES = ['postgres:', 'postgresql:'];

/** How the matchmaker widens its ranges as tickets wait (MATCHMAKER_RELAXATION; src/matchmaker/matching.ts). */
export interface Relaxation {
  stepPercent: number;
  everySeconds: number;
  maxPercent: number;
}

export class Environment {
  @Variable({ default: '3000', meaning: 'HTTP port.', comment: 'HTTP port' })
  @Integer(0, 65535)
  PORT: number;

  @Variable({ default: '0.0.0.0', meaning: 'Interface to listen on.', comment: 'interface to listen on' })
  HOST: string;

  @Variable({
    meaning:
      '`postgresql://…` of the database. Unset: the embedded PostgreSQL in `DATA_DIR` (production too: a single-node deployment ' +
      'is a real use; the start-up log says which database is in use).',
    example: 'postgresql://game:game@localhost:5432/game_backend',
    comment: 'unset: embedded PostgreSQL in DATA_DIR',
  })
  @IsOptional()
  @Url(...POSTGRES)
  DATABASE_URL?: string;

  @Variable({
    defaultText: '`DATABASE_URL`',
    meaning:
      '`postgresql://…` of PostgreSQL itself, for what needs a session of its own (the realtime `LISTEN` connection, the ' +
      'migration lock) when `DATABASE_URL` goes through a transaction-pooling PgBouncer ([docs/SCALING.md](docs/SCALING.md#pgbouncer)).',
    example: 'postgresql://game:game@localhost:5432/game_backend',
    comment: 'PostgreSQL itself when DATABASE_URL is a PgBouncer',
  })
  @IsOptional()
  @Url(...POSTGRES)
  DATABASE_DIRECT_URL?: string;

  @Variable({
    // A DATABASE_DIRECT_URL set apart says DATABASE_URL is a transaction-pooling PgBouncer: one older than
    // 1.21, or without max_prepared_statements, cannot follow a client's named statements from one server
    // connection to the next.
    default: ({ DATABASE_URL, DATABASE_DIRECT_URL }) =>
      DATABASE_DIRECT_URL === undefined || DATABASE_DIRECT_URL === DATABASE_URL ? 'true' : 'false',
    defaultText: '`true`, `false` when `DATABASE_DIRECT_URL` differs from `DATABASE_URL`',
    meaning:
      "Whether the statements every economy write repeats (lock, holdings, the settling statement), a record's insert and " +
      "versioned update, the admin audit's entry and the commonest reads (a record by id, a whole table's count) are named " +
      'prepared statements, planned once per connection, which spares ' +
      'PostgreSQL most of their cost (figures in docs/PERFORMANCE.md). A ' +
      'transaction-pooling PgBouncer before 1.21, or without `max_prepared_statements`, cannot keep them, hence the default ' +
      'behind one ([docs/SCALING.md](docs/SCALING.md#pgbouncer)).',
    example: 'true',
    comment: 'default: false behind a PgBouncer (DATABASE_DIRECT_URL set apart); true with PgBouncer >= 1.21 and max_prepared_statements',
  })
  @Flag()
  DATABASE_PREPARED_STATEMENTS: boolean;

  @Variable({
    meaning:
      'Comma-separated `postgresql://…` of streaming-replication read replicas for catalog reads (items, assets, achievement ' +
      'definitions, text resolution, public skill progress). A replica that is down or behind is skipped; the primary answers ' +
      '([docs/SCALING.md](docs/SCALING.md#read-replicas)).',
    example: 'postgresql://game:secret@replica1:5432/game_backend',
    comment: 'catalog reads on streaming replicas',
  })
  @IsOptional()
  @List()
  @EveryEntry((entry) => isUrlOf(entry, POSTGRES), 'must be comma-separated postgres:// URLs', redactUrl)
  DATABASE_REPLICA_URLS?: string[];

  @Variable({
    default: '5',
    meaning:
      'Seconds a replica may be behind the primary and still serve catalog reads. An instance reads a table it has just ' +
      'written from the primary until a replica has caught up.',
    comment: 'seconds a replica may lag and still serve',
  })
  @Integer(1, 3600)
  REPLICA_MAX_LAG: number;

  @Variable({
    meaning:
      '`redis://…` of a Redis for rate-limit counters shared by every instance, for the realtime and revocation wake-ups ' +
      "between instances (instead of PostgreSQL `LISTEN/NOTIFY`), and for the leaderboards' rank structure (sorted sets " +
      'shared by every instance instead of a tree in each). Unset: each instance counts its own. While it is ' +
      'unreachable the service keeps serving with per-instance counters, polls the realtime inboxes, checks revocations ' +
      'in the database and ranks in process; `/health/ready` answers 200 `degraded`, `/metrics` shows `redis_up 0` ' +
      '([docs/SCALING.md](docs/SCALING.md#redis)).',
    example: 'redis://localhost:6379',
    comment:
      'shared rate-limit counters, realtime/revocation wake-ups, leaderboard ranks; unset: per-instance counters, LISTEN/NOTIFY, in-process ranks',
  })
  @IsOptional()
  @Url('redis:', 'rediss:')
  REDIS_URL?: string;

  @Variable({
    default: '.data',
    meaning:
      'Embedded PostgreSQL cluster (`postgres/`) and its passwords (`postgres.credentials.json`, mode 0600), development key ' +
      'pair (`dev-idp/`) and development JWT secret.',
    comment: 'embedded PostgreSQL, development key pair and JWT secret',
  })
  DATA_DIR: string;

  @Variable({
    defaultText: 'dev: generated in `DATA_DIR`',
    meaning: 'HS256 secret of our tokens, 32+ characters. **Required in production.**',
    example: 'change-me-to-32-or-more-random-characters',
    comment: 'required in production; dev: generated in DATA_DIR',
  })
  @IsOptional()
  @MinLength(32, { message: '$property must be at least 32 characters long' })
  JWT_SECRET?: string;

  @Variable({
    default: '3600',
    meaning: 'Lifetime of our tokens, in seconds (60 to one year).',
    comment: 'lifetime of our tokens, in seconds (60 to one year)',
  })
  @Integer(60, 31_536_000)
  JWT_TTL: number;

  @Variable({ default: 'game-backend', meaning: '`iss` and `aud` of our tokens, checked on every request.', comment: 'iss of our tokens' })
  JWT_ISSUER: string;

  @Variable({ default: 'game-backend', rowOf: 'JWT_ISSUER', comment: 'aud of our tokens' })
  JWT_AUDIENCE: string;

  @Variable({
    default: 'true',
    meaning:
      'Guest sign-in with a device id (`POST /auth/device`) and linking devices to accounts; `false` refuses both (403) and ' +
      'leaves the devices linked so far in place.',
    comment: 'false: no guest sign-in with a device id, no device links',
  })
  @Flag()
  DEVICE_AUTH_ENABLED: boolean;

  @Variable({
    defaultText: 'derived from `JWT_SECRET`',
    meaning:
      'Key of the HMAC-SHA256 under which device ids are stored, 32+ characters, the same on every instance. Set it in ' +
      'production before the first guest signs in, and never change it: under another key no device finds its account ' +
      'again. Unset, it is derived from `JWT_SECRET`, which then must never change either ([SECURITY.md](SECURITY.md#device-ids)).',
    example: 'change-me-to-32-or-more-other-random-characters',
    comment: 'never change it once guests exist; unset: derived from JWT_SECRET',
  })
  @IsOptional()
  @MinLength(32, { message: '$property must be at least 32 characters long' })
  DEVICE_ID_KEY?: string;

  @Variable({
    default: '50',
    meaning:
      'Guest accounts (first sign-ins of a device, `POST /auth/device`) one client address may make in a `GUEST_ACCOUNT_WINDOW` ' +
      '(an IPv6 address counts by its /64); one more is 429 `GUEST_ACCOUNT_LIMIT` with `Retry-After`, while devices that have ' +
      'an account sign in as ever. Raise it where many players share an address (carrier NAT); `0`: no bound.',
    comment: 'guest accounts one address may make per GUEST_ACCOUNT_WINDOW; 0: no bound',
  })
  @Integer(0, 1_000_000)
  GUEST_ACCOUNTS_PER_ADDRESS: number;

  @Variable({
    default: '86400',
    meaning: 'Seconds of the windows (from the Unix epoch: UTC days by default) in which `GUEST_ACCOUNTS_PER_ADDRESS` counts.',
    comment: 'seconds of the window GUEST_ACCOUNTS_PER_ADDRESS counts in (a UTC day)',
  })
  @Integer(60, 31 * 24 * 3600)
  GUEST_ACCOUNT_WINDOW: number;

  @Variable({
    default: '2592000',
    meaning: 'Seconds a player session lives past its sign-in or last refresh (sliding; 30 days).',
    comment: 'seconds a player session lives past its last refresh (sliding)',
  })
  @Integer(2, 366 * 24 * 3600)
  REFRESH_TTL: number;

  @Variable({
    default: '5000',
    meaning:
      'Milliseconds after a refresh token is spent during which presenting it again is a concurrent refresh (409), not a ' +
      'replay (0 to 60000).',
    comment: 'ms in which a spent refresh token is a concurrent refresh (409), not a replay',
  })
  @Integer(0, 60_000)
  REFRESH_REUSE_GRACE: number;

  @Variable({
    defaultText: 'dev: built-in provider',
    meaning: 'idp1 (OpenID Connect): both or neither.',
    example: 'https://id.example.com/.well-known/jwks.json',
    comment: 'idp1 (OpenID Connect), with IDP1_ISSUER; unset: dev provider',
  })
  @IsOptional()
  @Url('http:', 'https:')
  IDP1_JWKS_URL?: string;

  @Variable({ rowOf: 'IDP1_JWKS_URL', example: 'https://id.example.com/', comment: "iss of idp1's tokens" })
  IDP1_ISSUER?: string;

  @Variable({
    meaning: 'When set, idp1 tokens must name it in `aud`.',
    example: 'game',
    comment: 'when set, idp1 tokens must name it in aud',
  })
  IDP1_AUDIENCE?: string;

  @Variable({
    default: '30',
    meaning: 'Least seconds between two key-set fetches caused by unknown `kid`s.',
    comment: 'least seconds between key-set fetches caused by unknown kids',
  })
  @Integer(0, 3600)
  IDP1_JWKS_COOLDOWN: number;

  @Variable({
    meaning:
      'The OAuth client id of the LiveOps console (`/console`) at idp1, a public client using the authorization code flow ' +
      'with PKCE. Unset: the console signs in with the development provider where it runs, and cannot sign in otherwise ' +
      '([docs/CONSOLE.md](docs/CONSOLE.md#sign-in)).',
    example: 'liveops-console',
    comment: "the console's OAuth client id at idp1 (code flow with PKCE)",
  })
  @IsOptional()
  @Matches(/^[\x21-\x7e]{1,256}$/, { message: 'CONSOLE_OIDC_CLIENT_ID must be 1 to 256 visible ASCII characters' })
  CONSOLE_OIDC_CLIENT_ID?: string;

  @Variable({
    defaultText: "`<the page's origin>/console/callback`",
    meaning: 'Where idp1 sends the console back after sign-in: registered at the provider for CONSOLE_OIDC_CLIENT_ID.',
    example: 'https://game.example.com/console/callback',
    comment: 'where idp1 sends the console back after sign-in',
  })
  @IsOptional()
  @Url('http:', 'https:')
  CONSOLE_OIDC_REDIRECT_URI?: string;

  @Variable({
    meaning: 'idp2 (RFC 7662): all three or none.',
    example: 'https://auth.example.com/oauth2/introspect',
    comment: 'idp2 (RFC 7662): all three or none',
  })
  @IsOptional()
  @Url('http:', 'https:')
  IDP2_INTROSPECTION_URL?: string;

  @Variable({ rowOf: 'IDP2_INTROSPECTION_URL', example: 'game-backend', comment: "idp2's client credentials (HTTP Basic)" })
  IDP2_CLIENT_ID?: string;

  @Variable({ rowOf: 'IDP2_INTROSPECTION_URL', example: '...' })
  IDP2_CLIENT_SECRET?: string;

  @Variable({
    default: ({ NODE_ENV }) => (NODE_ENV === 'production' ? undefined : 'idp1:admin'),
    defaultText: 'dev: `idp1:admin`; production: none',
    meaning: 'Comma-separated `<provider>:<subject>` pairs with the admin role.',
    example: 'idp1:admin',
    comment: 'comma-separated <provider>:<subject>; the dev default, none in production',
  })
  @IsOptional()
  @List()
  @EveryEntry((entry) => /^idp[12]:.+$/.test(entry), 'entries must look like idp1:<subject> or idp2:<subject>')
  ADMIN_USERS?: string[];

  @Variable({
    default: 'false',
    meaning: 'Lets anonymous callers use the optional-auth write routes.',
    comment: 'true: anonymous callers may use the optional-auth write routes',
  })
  @Flag()
  ANONYMOUS_WRITES: boolean;

  @Variable({
    default: 'true',
    meaning:
      'Rate limiting (429 with `Retry-After`); `false` turns it off. Counters are shared over `REDIS_URL` when it is set, ' +
      'else per instance.',
    comment: 'false turns rate limiting (429 with Retry-After) off',
  })
  @Flag()
  RATE_LIMIT_ENABLED: boolean;

  @Variable({ default: '600', meaning: 'Requests a minute per user (per address for anonymous callers).', comment: 'per user' })
  @Integer(1, 1_000_000)
  RATE_LIMIT_PER_MINUTE: number;

  @Variable({ default: '3000', meaning: 'Requests a minute per client address, whoever calls.', comment: 'per client address' })
  @Integer(1, 1_000_000)
  RATE_LIMIT_IP_PER_MINUTE: number;

  @Variable({
    default: '60',
    meaning: 'Sign-ins (`/auth/*`, device sign-ins included) and identity links (`/account/link/*`) a minute per client address.',
    comment: 'sign-ins per client address',
  })
  @Integer(1, 1_000_000)
  RATE_LIMIT_AUTH_PER_MINUTE: number;

  @Variable({
    default: 'false',
    meaning:
      "Whose `X-Forwarded-For` gives the client's address: `true` (any proxy), or the proxies' addresses and CIDR ranges " +
      "(`10.0.0.0/8`, `uniquelocal`, ...). Unset, the socket's address counts.",
    example: '10.0.0.0/8',
    comment: "the load balancer's addresses: X-Forwarded-For then gives the client's",
  })
  @ReadWith(
    readTrustProxy,
    'TRUST_PROXY must be true, false, or comma-separated proxy addresses, CIDR ranges (e.g. 10.0.0.0/8) or ' +
      `${PROXY_RANGE_NAMES.join('/')}, got "$value"`,
  )
  TRUST_PROXY: boolean | string[];

  @Variable({
    meaning: 'Comma-separated origins browsers may call from (`https://play.example.com`), or `*`. Unset: no CORS headers.',
    example: 'https://play.example.com',
    comment: 'comma-separated origins browsers may call from, or *; unset: no CORS',
  })
  @IsOptional()
  @List()
  @ValidateIf(({ CORS_ORIGINS }: Environment) => CORS_ORIGINS?.join() !== '*')
  @EveryEntry(isOrigin, 'entries must be origins such as https://play.example.com (no path), or * alone')
  CORS_ORIGINS?: string[];

  @Variable({
    default: '10000',
    meaning:
      "Milliseconds a request's headers may take to arrive, counted from the connection's start (or from the first byte of a " +
      'later request on a kept-alive connection); past it the connection is answered 408 `REQUEST_TIMEOUT` and closed.',
    comment: "ms a request's headers may take to arrive (then 408, closed)",
  })
  @Integer(100, 600_000)
  HTTP_HEADERS_TIMEOUT: number;

  @Variable({
    default: '30000',
    meaning:
      'Milliseconds a JSON body (at most 1 MiB) may take to arrive once its headers have: past it the request is answered 408 ' +
      '`REQUEST_TIMEOUT` and its connection closed. Media uploads are bounded by `HTTP_IDLE_TIMEOUT` and `MEDIA_UPLOAD_TTL` ' +
      'instead, so that a large file on a slow line is not cut off.',
    comment: 'ms a JSON body may take to arrive after its headers (then 408, closed)',
  })
  @Integer(100, 3_600_000)
  HTTP_BODY_TIMEOUT: number;

  @Variable({
    default: '60000',
    meaning:
      'Milliseconds a connection may send and receive nothing while a request is under way (a stalled upload, a client that ' +
      'stopped reading an answer); past it the connection is closed. WebSockets have their pings instead.',
    comment: 'ms a connection may stay silent during a request (then closed)',
  })
  @Integer(100, 3_600_000)
  HTTP_IDLE_TIMEOUT: number;

  @Variable({
    default: '72000',
    meaning:
      "Milliseconds a keep-alive connection may wait for its next request. Keep it above a load balancer's idle timeout " +
      "(AWS ALB's is 60 s), so that the balancer, not the service, closes idle connections and never sends on a closing one.",
    comment: 'ms a keep-alive connection waits for its next request',
  })
  @Integer(100, 3_600_000)
  HTTP_KEEP_ALIVE_TIMEOUT: number;

  @Variable({
    default: () => String(defaultMaxConnections()),
    defaultText: `the open-files limit less ${FILES_KEPT_FREE.toLocaleString('en')} (\`ulimit -n\`; ${CONNECTIONS_WITHOUT_A_KNOWN_LIMIT.toLocaleString('en')} where the system does not say)`,
    meaning:
      'Connections (HTTP and WebSocket) one instance holds at most; one more is closed as soon as it is accepted ' +
      '(`http_connections_refused_total{reason="total"}`). It must stay below the open-files limit: past that limit every ' +
      'file, socket and even a memory reading fails.',
    example: '19000',
    comment: 'connections one instance holds; below the open-files limit',
  })
  @Integer(1, 10_000_000)
  HTTP_MAX_CONNECTIONS: number;

  @Variable({
    default: '1000',
    meaning:
      'Connections one client address (an IPv6 /64) may hold on one instance; one more is closed as soon as it is accepted ' +
      '(`http_connections_refused_total{reason="address"}`). The socket\'s address counts: the proxies `TRUST_PROXY` names are ' +
      'not limited (their clients are limited by the proxy, and by the rate limits), and `TRUST_PROXY=true` turns this off.',
    comment: 'connections per client address and instance (trusted proxies exempt)',
  })
  @Integer(1, 10_000_000)
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: number;

  @Variable({
    default: 'true',
    meaning: 'Runs the matchmaking worker, ticket expiry and the lobby sweep in this instance (any number may run them).',
    comment: 'run the matchmaking worker in this instance',
  })
  @Flag()
  MATCHMAKER_ENABLED: boolean;

  @Variable({ default: '1000', meaning: 'Milliseconds between matchmaking passes.', comment: 'milliseconds between matchmaking passes' })
  @Integer(50, 3_600_000)
  MATCHMAKER_INTERVAL: number;

  @Variable({
    default: '{}',
    meaning: 'JSON object of statistic name → weight in the distance between tickets (others weigh 1), e.g. `{"skill":1,"latency":5}`.',
    example: '{"skill":1,"latency":5}',
    comment: 'statistic -> weight (default {}: every statistic weighs 1)',
  })
  @ReadWith(readWeights, 'MATCHMAKER_WEIGHTS must be a JSON object of statistic names to weights >= 0, e.g. {"skill":2}')
  MATCHMAKER_WEIGHTS: Record<string, number>;

  @Variable({
    default: '10000',
    meaning: 'Waiting tickets one pass considers at most (oldest first); how long a full batch takes is in docs/PERFORMANCE.md.',
    comment: 'waiting tickets one pass considers at most',
  })
  @Integer(2, 100_000)
  MATCHMAKER_BATCH: number;

  @Variable({
    default: '300',
    meaning: 'Seconds a ticket waits before it expires (`INVALID`, reason `EXPIRED`); a client may ask for less (1 to 86400).',
    comment: 'seconds a ticket waits before it expires (a client may ask for less)',
  })
  @Integer(1, 86_400)
  MATCHMAKER_TICKET_TTL: number;

  @Variable({
    default: '1',
    meaning: 'Queued (`SEARCHING` or `INITIALIZING`) tickets one user may be on at once (1 to 100).',
    comment: 'queued tickets one user may be on at once',
  })
  @Integer(1, 100)
  MATCHMAKER_TICKETS_PER_USER: number;

  @Variable({
    default: '10%/10s max 100%',
    meaning: 'How criteria ranges widen with waiting time: `<step>%/<seconds>s[ max <cap>%]`, or `off`.',
    comment: 'how criteria ranges widen with waiting time; off: never',
  })
  @ReadWith(readRelaxation, 'MATCHMAKER_RELAXATION must look like 10%/10s or 10%/10s max 100% (or off), got "$value"')
  MATCHMAKER_RELAXATION: Relaxation | false;

  @Variable({
    default: '60',
    meaning: 'Seconds a session member may go without a heartbeat or an open socket before being removed; `0`: never.',
    comment: 'seconds a session member may stay silent (no heartbeat, no socket); 0: never',
  })
  @Integer(0, 86_400)
  SESSION_MEMBER_TIMEOUT: number;

  @Variable({
    default: '86400',
    meaning: 'Seconds an `ENDED` session is kept before it is removed with its roster; `0`: kept until deleted.',
    comment: 'seconds an ENDED session is kept; 0: until deleted',
  })
  @Integer(0, 366 * 24 * 3600)
  SESSION_RETENTION: number;

  @Variable({
    default: '5',
    meaning: 'Wrong join passwords a minute one player may try on one session; then 429 with `Retry-After`.',
    comment: 'wrong join passwords a minute per player and session (then 429)',
  })
  @Integer(1, 1000)
  SESSION_PASSWORD_ATTEMPTS: number;

  @Variable({
    default: '20',
    meaning: 'Wrong join passwords a minute all players together may try on one session.',
    comment: 'wrong join passwords a minute per session, all players together',
  })
  @Integer(1, 100_000)
  SESSION_PASSWORD_ATTEMPTS_PER_SESSION: number;

  @Variable({
    default: '10',
    meaning:
      'Personas one user may have (the first, made at sign-in, included); one more is 409 `PERSONA_LIMIT` with the limit. ' +
      'Each persona holds an inventory, progress and leaderboard records of its own.',
    comment: 'personas one user may have (409 PERSONA_LIMIT past it)',
  })
  @Integer(1, 1000)
  PERSONAS_PER_USER: number;

  @Variable({
    default: '4194304',
    meaning:
      'The most bytes of records one list answer holds (lists and `GET /notifications`): a page that would pass it ends ' +
      'early, with `X-Next-Skip` (64 KiB to 256 MiB).',
    comment: 'bytes of records one list answer holds at most (X-Next-Skip says where to go on)',
  })
  @Integer(64 * 1024, 256 * 1024 * 1024)
  LIST_MAX_BYTES: number;

  @Variable({
    default: '128',
    meaning:
      'Requests one instance works on at once (from when their body has been read until their answer is ready); one more ' +
      'is answered 503 `OVERLOADED` with `Retry-After` at once, so that an overload leaves no backlog to work through ' +
      'after it (`http_requests_shed_total`). Health probes and `/metrics` are never refused.',
    comment: 'requests worked on at once (then 503 OVERLOADED)',
  })
  @Integer(1, 1_000_000)
  HTTP_REQUESTS_IN_FLIGHT: number;

  @Variable({
    default: 'true',
    meaning:
      'Closes the leaderboard periods that have ended (final ranks, `leaderboard.period_ended`), pays their prizes and removes ' +
      "periods past a board's `keepPeriods`, in this instance (any number may: periods and prizes are claimed, and each prize " +
      'is paid once).',
    comment: 'close leaderboard periods and pay their prizes in this instance',
  })
  @Flag()
  LEADERBOARD_WORKER_ENABLED: boolean;

  @Variable({
    default: '1000',
    meaning: 'Milliseconds between two rounds of the leaderboard worker.',
    comment: 'milliseconds between leaderboard worker rounds',
  })
  @Integer(50, 3_600_000)
  LEADERBOARD_INTERVAL: number;

  @Variable({
    default: '20000',
    meaning:
      'Milliseconds after a period has ended before it is closed: scores submitted just before the end finish first (a ' +
      'write lasts at most its statement timeout of 15 s). Its final ranks and prizes wait as long.',
    comment: "milliseconds between a period's end and its close",
  })
  @Integer(0, 600_000)
  LEADERBOARD_CLOSE_DELAY: number;

  @Variable({
    default: '600',
    meaning:
      "Seconds the log of rank changes is kept: how far behind an instance's rank structure may fall and catch up (further, " +
      'it is rebuilt from PostgreSQL), and how long a page cursor of a leaderboard stays valid.',
    comment: 'seconds the rank-change log is kept (and page cursors last)',
  })
  @Integer(60, 86_400)
  LEADERBOARD_LOG_RETENTION: number;

  @Variable({
    default: '500000',
    meaning:
      "The most ranked records of open periods this instance's in-process rank structure holds (each costs memory on every " +
      'instance: [docs/PERFORMANCE.md](docs/PERFORMANCE.md#leaderboards)). Past it, the largest periods are ranked from ' +
      'PostgreSQL instead, on its index, until they close: a rank then costs a walk of the records before it. With `REDIS_URL` ' +
      'the sets in Redis hold every period and the instance none, but while Redis is away.',
    comment: 'ranked records held in memory per instance; past it the largest periods rank from PostgreSQL',
  })
  @Integer(0, 100_000_000)
  LEADERBOARD_RANKS_IN_MEMORY: number;

  @Variable({
    default: '5',
    meaning: 'Open realtime sockets a user may hold on one instance; one more is closed with 4429.',
    comment: 'open /realtime sockets per user and instance',
  })
  @Integer(1, 1000)
  REALTIME_MAX_SOCKETS_PER_USER: number;

  @Variable({
    default: '256',
    meaning:
      'Upgrades to `/realtime` one instance decides at once (rate limits, token or ticket, revocation); one more is answered ' +
      '503 `OVERLOADED` with `Retry-After` before any of that work (`realtime_upgrades_shed_total`).',
    comment: 'upgrades to /realtime decided at once (then 503)',
  })
  @Integer(1, 100_000)
  REALTIME_UPGRADES_IN_FLIGHT: number;

  @Variable({
    default: '604800',
    meaning: 'Seconds events stay in the inbox (to resume, and for `GET /notifications`); pruned hourly by one instance.',
    comment: 'seconds events stay in the inbox (7 days)',
  })
  @Integer(60, 365 * 24 * 3600)
  REALTIME_RETENTION: number;

  @Variable({
    default: '30000',
    meaning: 'Milliseconds between pings of every socket; a socket that missed the last one is dropped.',
    comment: 'ms between pings; a socket that missed one is dropped',
  })
  @Integer(100, 3_600_000)
  REALTIME_PING_INTERVAL: number;

  @Variable({
    default: '1048576',
    meaning: 'Bytes of unsent data after which a socket is a slow consumer, closed with 4413 (it may resume).',
    comment: 'bytes of unsent data before a socket is closed as a slow consumer',
  })
  @Integer(1024, 256 * 1024 * 1024)
  REALTIME_MAX_BUFFER: number;

  @Variable({
    default: '1000',
    meaning: 'Events kept per player: past it the oldest are dropped within seconds (`realtime_events_dropped_total`).',
    comment: 'events kept per player; the oldest are dropped past it',
  })
  @Integer(10, 1_000_000)
  REALTIME_INBOX_MAX: number;

  @Variable({
    default: '65536',
    meaning:
      "The most bytes a storage object's value may take, as compact JSON (UTF-8); a larger one is 413 `PAYLOAD_TOO_LARGE` " +
      'and nothing of its batch is written (1 KiB to 1 MiB; a request body holds at most 1 MiB).',
    comment: 'bytes of JSON one storage value may take',
  })
  @Integer(1024, 1024 * 1024)
  STORAGE_VALUE_MAX_BYTES: number;

  @Variable({
    default: '1000',
    meaning:
      'Storage objects one player may own; a write that would pass it is 409 `QUOTA_EXCEEDED` with what is left. Admins ' +
      '(a game server) write past it.',
    comment: 'storage objects per player',
  })
  @Integer(1, 10_000_000)
  STORAGE_OBJECTS_PER_OWNER: number;

  @Variable({
    default: '10485760',
    meaning: 'Bytes of storage values (their JSON) one player may own, 10 MiB; past it as `STORAGE_OBJECTS_PER_OWNER`.',
    comment: 'bytes of storage values per player (10 MiB)',
  })
  @Integer(1024, 2 ** 40)
  STORAGE_BYTES_PER_OWNER: number;

  @Variable({
    default: '100',
    meaning:
      'Storage objects a guest may own: an account whose only ways in are devices, until it links an identity provider ' +
      '(`POST /account/link/idp1`); a larger value counts as `STORAGE_OBJECTS_PER_OWNER`.',
    comment: 'storage objects per guest (no provider identity linked)',
  })
  @Integer(0, 10_000_000)
  STORAGE_GUEST_OBJECTS_PER_OWNER: number;

  @Variable({
    default: '1048576',
    meaning: 'Bytes of storage values a guest may own, 1 MiB; a larger value counts as `STORAGE_BYTES_PER_OWNER`.',
    comment: 'bytes of storage values per guest (1 MiB)',
  })
  @Integer(0, 2 ** 40)
  STORAGE_GUEST_BYTES_PER_OWNER: number;

  @Variable({
    default: '52428800',
    meaning:
      'The most bytes one uploaded media file may hold (50 MiB): an upload past it is 413, cut off mid-stream, and leaves ' +
      'nothing (1 KiB to 5 GiB, the largest object S3 copies in one request).',
    comment: 'bytes one uploaded media file may hold (413 past it)',
  })
  @Integer(1024, 5 * 1024 * 1024 * 1024)
  MEDIA_MAX_BYTES: number;

  @Variable({
    default: 'true',
    meaning:
      'Whether uploaded media files (`GET /media/…`) are served to anyone, as game clients and CDNs fetch them; `false`: to ' +
      'signed-in users only, with `Cache-Control: private`.',
    comment: 'false: media files only to signed-in users',
  })
  @Flag()
  MEDIA_PUBLIC: boolean;

  @Variable({
    default: MEDIA_TYPES_DEFAULT,
    defaultText: 'images, audio, video, fonts, glTF, JSON, text, zip and octet-stream (`.env.example` lists them)',
    meaning:
      'Comma-separated media types an upload may have (`image/png`, or a whole kind: `image/*`); others are 415. HTML, SVG, ' +
      'XML, PDF and script types, when allowed, are served as `attachment`.',
    comment: 'media types an upload may have (type/subtype or type/*)',
  })
  @List()
  @EveryEntry(
    (entry) => /^[a-z0-9!#$&^_.+-]+\/(?:\*|[a-z0-9!#$&^_.+-]+)$/.test(entry),
    'entries must be media types such as image/png or image/*',
  )
  MEDIA_TYPES: string[];

  @Variable({
    // A malformed PORT is reported as such, not again through this default.
    default: ({ PORT }) => `http://localhost:${/^\d{1,5}$/.test(PORT ?? '') ? PORT : '3000'}`,
    defaultText: '`http://localhost:<PORT>`',
    meaning:
      "What the `uri` of an uploaded file starts with: the service's public address, or a CDN in front of it that forwards " +
      '`/media/` ([docs/SCALING.md](docs/SCALING.md#media-files)). Written into each file at upload: **set it in production**.',
    example: 'https://cdn.example.com',
    comment: "what uploaded files' uri start with: the public address or a CDN",
  })
  @Url('http:', 'https:')
  MEDIA_BASE_URL: string;

  @Variable({
    default: ({ DATA_DIR }) => `${DATA_DIR ?? '.data'}/media`,
    defaultText: '`DATA_DIR/media`',
    meaning:
      'Where the local store keeps uploaded files (`blobs/`, by digest) and uploads in progress (`tmp/`), when no S3 bucket ' +
      'is configured. Several instances need it on a shared volume, or the S3 store.',
    example: '/var/lib/game-backend/media',
    comment: 'the local media store (unset MEDIA_S3_BUCKET)',
  })
  MEDIA_DIR: string;

  @Variable({
    default: '3600',
    meaning:
      'Seconds an upload may take: a streamed upload running longer is cut off (408), a direct upload URL expires; what an ' +
      'interrupted upload left is removed by the sweep once this old (2 to 604800).',
    comment: 'seconds an upload may take; leftovers older are swept',
  })
  @Integer(2, 604_800)
  MEDIA_UPLOAD_TTL: number;

  @Variable({
    default: '600',
    meaning:
      'Seconds between two sweeps of the media store by this instance (files no variant references, leftovers of ' +
      'interrupted uploads); `0`: this instance does not sweep.',
    comment: 'seconds between sweeps of unreferenced media files; 0: never on this instance',
  })
  @Integer(0, 86_400)
  MEDIA_SWEEP_INTERVAL: number;

  @Variable({
    meaning:
      'Keeps media files in this bucket of an S3-compatible store rather than in `MEDIA_DIR`, and enables direct uploads ' +
      '(presigned URLs) for large files.',
    example: 'game-media',
    comment: 'S3 bucket for media files; unset: the local store in MEDIA_DIR',
  })
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: '$property must be an S3 bucket name, got "$value"' })
  MEDIA_S3_BUCKET?: string;

  @Variable({
    defaultText: "AWS's endpoint for `MEDIA_S3_REGION`",
    meaning: 'URL of an S3-compatible store (MinIO, Ceph, R2, ...). Clients send direct uploads to it: it must be reachable by them.',
    example: 'http://localhost:9000',
    comment: 'an S3-compatible store; unset: AWS',
  })
  @IsOptional()
  @Url('http:', 'https:')
  MEDIA_S3_ENDPOINT?: string;

  @Variable({ default: 'us-east-1', meaning: "The bucket's region.", comment: "the bucket's region" })
  MEDIA_S3_REGION: string;

  @Variable({
    defaultText: "the AWS SDK's default credentials (environment, profile, instance role)",
    meaning: 'Access key of the S3 store: both or neither.',
    example: '...',
    comment: 'S3 access key, with MEDIA_S3_SECRET_ACCESS_KEY; unset: the AWS default chain',
  })
  MEDIA_S3_ACCESS_KEY_ID?: string;

  @Variable({ rowOf: 'MEDIA_S3_ACCESS_KEY_ID', example: '...' })
  MEDIA_S3_SECRET_ACCESS_KEY?: string;

  @Variable({
    default: ({ MEDIA_S3_ENDPOINT }) => (MEDIA_S3_ENDPOINT === undefined ? 'false' : 'true'),
    defaultText: '`true` with `MEDIA_S3_ENDPOINT`, else `false`',
    meaning: 'Addresses the bucket in the path (`endpoint/bucket/key`), as most S3-compatible stores expect.',
    example: 'true',
    comment: 'bucket in the path rather than the host name',
  })
  @Flag()
  MEDIA_S3_FORCE_PATH_STYLE: boolean;

  @Variable({
    default: '5',
    meaning:
      `Seconds of quiet (no second with more than ${QUIET_WORK_PER_SECOND} request, socket opened or event sent) after which the instance compacts its heap: ` +
      `once after start, then after a busy period (a second with more than ${BUSY_WORK_PER_SECOND}) that grew its resident set ${COMPACTION_MIN_GROWTH_BYTES / 1024 / 1024} MB. ` +
      'One pause of its main thread (`memory_compaction_pause_seconds`) that gives back what the busy period grew; `0`: never.',
    comment: 'seconds of quiet before the heap is compacted; 0: never',
  })
  @Integer(0, 3600)
  MEMORY_COMPACT_IDLE: number;

  @Variable({
    default: 'info',
    meaning: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.',
    comment: 'fatal, error, warn, info, debug, trace or silent',
  })
  @ReadAs((text) => LOG_LEVELS.find((level) => level === text.toLowerCase()))
  @IsIn(LOG_LEVELS, { message: `$property must be one of ${LOG_LEVELS.join(', ')}, got "$value"` })
  LOG_LEVEL: LogLevel;

  @Variable({
    default: 'development',
    meaning: '`production` turns off the development provider and requires `JWT_SECRET` and a provider.',
    comment: 'production: no dev provider; JWT_SECRET and a provider are required',
  })
  NODE_ENV: string;
}

/**
 * Variables the service never reads but its deployment files do: documented beside the service's own
 * (README "Configuration", `.env.example`), since operators set them in the same `.env`.
 */
export const DEPLOYMENT_VARIABLES: ReadonlyArray<{
  name: string;
  readBy: string;
  defaultText: string;
  meaning: string;
  example: string;
  comment: string;
}> = [
  {
    name: 'POSTGRES_PASSWORD',
    readBy: 'docker-compose.yml',
    defaultText: 'none (required)',
    meaning: "The password of the compose file's PostgreSQL, in URL-safe characters (`openssl rand -hex 24`): it goes into `DATABASE_URL`.",
    example: '...',
    comment: "its PostgreSQL's password, URL-safe (openssl rand -hex 24)",
  },
  {
    name: 'DATABASE_HOST',
    readBy: 'docker-compose.yml',
    defaultText: '`postgres`',
    meaning:
      'Host of the `DATABASE_URL` the compose file gives the service: `pgbouncer` with `docker compose --profile scale up` ' +
      '([docs/SCALING.md](docs/SCALING.md#pgbouncer)).',
    example: 'pgbouncer',
    comment: 'host of the DATABASE_URL it builds: pgbouncer with --profile scale',
  },
  {
    name: 'DATABASE_PORT',
    readBy: 'docker-compose.yml',
    defaultText: '`5432`',
    meaning: 'Port of the `DATABASE_URL` the compose file gives the service: `6432` with `DATABASE_HOST=pgbouncer`.',
    example: '6432',
    comment: 'port of the DATABASE_URL it builds: 6432 with pgbouncer',
  },
];

/** What no one variable can say: sets that go together, and what production requires. */
export function problemsAcross(environment: Environment): string[] {
  const problems: string[] = [];
  const { IDP1_JWKS_URL, IDP1_ISSUER } = environment;
  if (IDP1_JWKS_URL !== undefined && IDP1_ISSUER === undefined) problems.push('IDP1_ISSUER is required when IDP1_JWKS_URL is set');
  if (IDP1_ISSUER !== undefined && IDP1_JWKS_URL === undefined) problems.push('IDP1_JWKS_URL is required when IDP1_ISSUER is set');

  if ((environment.MEDIA_S3_ACCESS_KEY_ID === undefined) !== (environment.MEDIA_S3_SECRET_ACCESS_KEY === undefined)) {
    problems.push('MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY must be set together');
  }

  const idp2 = ['IDP2_INTROSPECTION_URL', 'IDP2_CLIENT_ID', 'IDP2_CLIENT_SECRET'] as const;
  const given = idp2.filter((name) => environment[name] !== undefined);
  if (given.length > 0 && given.length < idp2.length) {
    const missing = idp2.filter((name) => !given.includes(name));
    problems.push(`${missing.join(' and ')} must be set together with ${given.join(' and ')}`);
  }

  const openFiles = openFilesLimit()?.soft;
  if (openFiles !== undefined && environment.HTTP_MAX_CONNECTIONS >= openFiles) {
    problems.push(
      `HTTP_MAX_CONNECTIONS (${environment.HTTP_MAX_CONNECTIONS}) must stay below the open-files limit (${openFiles}): ` +
        'lower it, or raise the limit (ulimit -n, LimitNOFILE)',
    );
  }

  if (environment.NODE_ENV === 'production') {
    if (environment.JWT_SECRET === undefined) problems.push('JWT_SECRET is required when NODE_ENV=production');
    if (IDP1_JWKS_URL === undefined && environment.IDP2_INTROSPECTION_URL === undefined) {
      problems.push(
        'an identity provider is required when NODE_ENV=production: set IDP1_JWKS_URL and IDP1_ISSUER, ' +
          'or IDP2_INTROSPECTION_URL, IDP2_CLIENT_ID and IDP2_CLIENT_SECRET',
      );
    }
  }
  return problems;
}

/** No hop count: Fastify cannot check the nearest peer with one. */
function readTrustProxy(text: string): boolean | string[] | undefined {
  const entries = readList(text);
  return readFlag(text) ?? (entries.length > 0 && entries.every(isProxy) ? entries : undefined);
}

/** A proxy's address, a CIDR range, or one of proxy-addr's names for ranges. */
function isProxy(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) return false;
  const version = isIP(address);
  if (version === 0) return false;
  return prefix === undefined || Number(prefix) <= (version === 4 ? 32 : 128);
}

/** An origin as a browser sends it: scheme, host and port, no path (a trailing slash is tolerated). */
export function isOrigin(entry: string): boolean {
  try {
    const url = new URL(entry);
    return ['http:', 'https:'].includes(url.protocol) && url.origin === entry.replace(/\/$/, '').toLowerCase();
  } catch {
    return false;
  }
}

function readWeights(text: string): Record<string, number> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const weights = Object.entries(parsed as Record<string, unknown>);
  const isWeight = (weight: unknown) => typeof weight === 'number' && Number.isFinite(weight) && weight >= 0;
  return weights.every(([, weight]) => isWeight(weight)) ? (Object.fromEntries(weights) as Record<string, number>) : undefined;
}

/**
 * `<step>%/<seconds>s`, optionally followed by `max <cap>%` (default cap 100%), e.g. `10%/10s max 100%`:
 * every 10 s of waiting a ticket's numeric ranges grow by 10% of their width, up to double. `off` never
 * relaxes.
 */
function readRelaxation(text: string): Relaxation | false | undefined {
  if (['off', 'none', '0'].includes(text.toLowerCase())) return false;
  const match = /^(\d{1,3}(?:\.\d+)?)%\s*\/\s*(\d{1,5})s(?:\s+max\s+(\d{1,4}(?:\.\d+)?)%)?$/i.exec(text);
  if (!match) return undefined;
  const relaxation = { stepPercent: Number(match[1]), everySeconds: Number(match[2]), maxPercent: Number(match[3] ?? 100) };
  return relaxation.stepPercent > 0 && relaxation.everySeconds >= 1 && relaxation.maxPercent > 0 ? relaxation : undefined;
}
