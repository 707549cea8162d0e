import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import type { Relaxation } from '../matchmaker/matching.js';

/**
 * The service's whole configuration, read from environment variables (docs/CONTRACT.md section 8).
 * Every value is checked once at start; a bad one stops the service with a message naming the variable,
 * so an operator never discovers a typo from a 500 at three in the morning.
 */
export interface AppConfig {
  nodeEnv: string;
  isProduction: boolean;
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL in `dataDir` serves. */
  databaseUrl: string | undefined;
  /**
   * Where what needs a session of its own connects (LISTEN, the migration lock): PostgreSQL itself when
   * DATABASE_URL goes through a transaction-pooling PgBouncer. Defaults to DATABASE_URL.
   */
  databaseDirectUrl: string | undefined;
  /**
   * Whether the statements every write repeats are prepared once per connection (named statements, see
   * src/database/statements.ts). Defaults to off when DATABASE_DIRECT_URL is set apart from DATABASE_URL,
   * which says DATABASE_URL is a transaction-pooling PgBouncer: one older than 1.21, or without
   * max_prepared_statements, cannot follow a client's named statements from one server connection to
   * the next.
   */
  preparedStatements: boolean;
  /**
   * Shared rate-limit counters across instances (unset: each instance counts its own). Optional: when
   * it is unreachable the service falls back to per-instance counters and says so.
   */
  redisUrl: string | undefined;
  /**
   * Read replicas of the primary (streaming replication) that serve catalog reads; empty: the primary
   * serves everything. A replica that is down or lags more than `maxLagMs` is skipped.
   */
  replicas: {
    urls: string[];
    maxLagMs: number;
  };
  dataDir: string;
  logLevel: LogLevel;
  anonymousWrites: boolean;
  jwt: {
    /** Unset outside production: a secret kept in the data directory. */
    secret: string | undefined;
    ttlSeconds: number;
    issuer: string;
    audience: string;
  };
  /** Player sessions (docs/SECURITY.md): one per sign-in, kept alive by single-use refresh tokens. */
  sessions: {
    /** A session ends this long after its last sign-in or refresh (sliding). */
    refreshTtlSeconds: number;
    /** A refresh token presented again this soon after it was spent is a concurrent refresh (409), not a replay. */
    reuseGraceMs: number;
  };
  idp1: {
    /** Unset outside production: the built-in development identity provider answers for idp1. */
    jwksUrl: string | undefined;
    issuer: string | undefined;
    audience: string | undefined;
    /** Least time between two JWKS fetches triggered by unknown key ids (guards the provider). */
    jwksCooldownSeconds: number;
  };
  idp2: {
    introspectionUrl: string | undefined;
    clientId: string | undefined;
    clientSecret: string | undefined;
  };
  /** `<provider>:<subject>` pairs that sign in with the admin role. */
  adminUsers: string[];
  matchmaker: {
    enabled: boolean;
    intervalMs: number;
    /** Weight of each statistic in the distance between tickets; statistics not named weigh 1. */
    weights: Record<string, number>;
    /** How many waiting tickets one run considers at most. */
    batchSize: number;
    /** How long a ticket waits before it expires (INVALID, reason EXPIRED); a client may ask for less. */
    ticketTtlSeconds: number;
    /** How many SEARCHING or INITIALIZING tickets one user may be on at once. */
    ticketsPerUser: number;
    /** How criteria ranges widen with waiting time; undefined: never. */
    relaxation: Relaxation | undefined;
  };
  /** How long a session member may stay silent (no heartbeat, no socket) before they are removed; 0: never. */
  sessionMemberTimeoutSeconds: number;
  /** How long an ENDED session is kept (then removed with its roster); 0: kept until deleted. */
  sessionRetentionSeconds: number;
  /** Wrong join passwords a minute (then 429), per (session, user) and per session; counted in Redis when configured. */
  sessionPasswordAttempts: {
    perUser: number;
    perSession: number;
  };
  /** The most bytes of records a list answer holds: a page ends early rather than pass it (X-Next-Skip says where to go on). */
  listMaxBytes: number;
  /** Requests per minute, counted in this instance's memory (each instance counts its own). */
  rateLimit: {
    enabled: boolean;
    /** Per signed-in user (our token's `sub`); per IP address for anonymous callers. */
    perMinute: number;
    /** Per IP address, whoever calls: players behind one NAT share it. */
    ipPerMinute: number;
    /** Per IP address on the sign-in routes (/auth/*), which create users and call the providers. */
    authPerMinute: number;
  };
  /**
   * Which proxies' `X-Forwarded-For` to believe for the client's address (Fastify's `trustProxy`):
   * false (the socket's address), true (any), or the proxies' addresses and CIDR ranges.
   */
  trustProxy: boolean | string[];
  /** Origins a browser may call the API from; empty: no CORS headers at all; `['*']`: any origin. */
  corsOrigins: string[];
  realtime: {
    /** Open sockets a user may hold on one instance; one more is closed with 4429. */
    maxSocketsPerUser: number;
    /** How long events stay in the inbox (for resuming and GET /notifications). */
    retentionSeconds: number;
    /** Between two pings of every socket; a socket that has not answered the last one is dropped. */
    pingIntervalMs: number;
    /** A socket whose unsent data passes this is a slow consumer: closed with 4413 (it may resume). */
    maxBufferedBytes: number;
    /** Events kept per user: past it, the oldest are dropped (realtime_events_dropped_total counts them). */
    inboxMaxEvents: number;
  };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class EnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'EnvironmentError';
  }
}

export type RawEnvironment = Record<string, string | undefined>;

/**
 * The configuration of this process: `.env` in the working directory (variables already set win),
 * then the environment, parsed once. The service, the scripts and the TypeORM CLI all start here.
 */
export function loadConfig(): AppConfig {
  if (existsSync('.env')) process.loadEnvFile('.env');
  return parseEnvironment(process.env);
}

/** Parses and checks the environment; throws an EnvironmentError listing every problem at once. */
export function parseEnvironment(raw: RawEnvironment): AppConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = raw[name]?.trim();
    return value === '' ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const value = read(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
      return fallback;
    }
    return parsed;
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const value = read(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes'].includes(value)) return true;
    if (['false', '0', 'no'].includes(value)) return false;
    problems.push(`${name} must be true or false, got "${raw[name]}"`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const value = read(name);
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return value;
    } catch {
      problems.push(`${name} must be a ${protocols.join(' or ')} URL, got "${redactUrl(value)}"`);
      return undefined;
    }
  };

  const nodeEnv = read('NODE_ENV') ?? 'development';
  const isProduction = nodeEnv === 'production';

  const logLevel = (read('LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw.LOG_LEVEL}"`);
  }

  const dataDir = read('DATA_DIR') ?? '.data';
  const jwtSecret = read('JWT_SECRET');
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters long');
  }

  const idp1 = {
    jwksUrl: url('IDP1_JWKS_URL', ['http:', 'https:']),
    issuer: read('IDP1_ISSUER'),
    audience: read('IDP1_AUDIENCE'),
    jwksCooldownSeconds: integer('IDP1_JWKS_COOLDOWN', 30, 0, 3600),
  };
  if (read('IDP1_JWKS_URL') && !idp1.issuer) problems.push('IDP1_ISSUER is required when IDP1_JWKS_URL is set');
  if (idp1.issuer && !read('IDP1_JWKS_URL')) problems.push('IDP1_JWKS_URL is required when IDP1_ISSUER is set');

  const idp2 = {
    introspectionUrl: url('IDP2_INTROSPECTION_URL', ['http:', 'https:']),
    clientId: read('IDP2_CLIENT_ID'),
    clientSecret: read('IDP2_CLIENT_SECRET'),
  };
  const idp2Names = ['IDP2_INTROSPECTION_URL', 'IDP2_CLIENT_ID', 'IDP2_CLIENT_SECRET'];
  const idp2Given = idp2Names.filter((name) => read(name) !== undefined);
  if (idp2Given.length > 0 && idp2Given.length < idp2Names.length) {
    const missing = idp2Names.filter((name) => !idp2Given.includes(name));
    problems.push(`${missing.join(' and ')} must be set together with ${idp2Given.join(' and ')}`);
  }

  const adminUsers = (read('ADMIN_USERS') ?? (isProduction ? '' : 'idp1:admin'))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of adminUsers) {
    if (!/^idp[12]:.+$/.test(entry)) {
      problems.push(`ADMIN_USERS entries must look like idp1:<subject> or idp2:<subject>, got "${entry}"`);
    }
  }

  if (isProduction) {
    if (jwtSecret === undefined) problems.push('JWT_SECRET is required when NODE_ENV=production');
    if (!read('IDP1_JWKS_URL') && !read('IDP2_INTROSPECTION_URL')) {
      problems.push(
        'an identity provider is required when NODE_ENV=production: set IDP1_JWKS_URL and IDP1_ISSUER, ' +
          'or IDP2_INTROSPECTION_URL, IDP2_CLIENT_ID and IDP2_CLIENT_SECRET',
      );
    }
  }

  const weights: Record<string, number> = {};
  const weightsText = read('MATCHMAKER_WEIGHTS');
  if (weightsText !== undefined) {
    try {
      const parsed: unknown = JSON.parse(weightsText);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      for (const [name, weight] of Object.entries(parsed)) {
        if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) throw new Error(`weight of ${name}`);
        weights[name] = weight;
      }
    } catch {
      problems.push('MATCHMAKER_WEIGHTS must be a JSON object of statistic names to weights >= 0, e.g. {"skill":2}');
    }
  }

  const relaxation = parseRelaxation(read('MATCHMAKER_RELAXATION'), problems);
  const trustProxy = parseTrustProxy(read('TRUST_PROXY'), problems);
  const corsOrigins = parseCorsOrigins(read('CORS_ORIGINS'), problems);

  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const databaseDirectUrl = url('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']);

  const config: AppConfig = {
    nodeEnv,
    isProduction,
    port: integer('PORT', 3000, 0, 65535),
    host: read('HOST') ?? '0.0.0.0',
    databaseUrl,
    databaseDirectUrl,
    preparedStatements: boolean('DATABASE_PREPARED_STATEMENTS', databaseDirectUrl === undefined || databaseDirectUrl === databaseUrl),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    replicas: {
      urls: parseReplicaUrls(read('DATABASE_REPLICA_URLS'), problems),
      maxLagMs: integer('REPLICA_MAX_LAG', 5, 1, 3600) * 1000,
    },
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(dataDir),
    logLevel: logLevel as LogLevel,
    anonymousWrites: boolean('ANONYMOUS_WRITES', false),
    jwt: {
      secret: jwtSecret,
      ttlSeconds: integer('JWT_TTL', 3600, 60, 31_536_000),
      issuer: read('JWT_ISSUER') ?? 'game-backend',
      audience: read('JWT_AUDIENCE') ?? 'game-backend',
    },
    sessions: {
      refreshTtlSeconds: integer('REFRESH_TTL', 30 * 24 * 3600, 2, 366 * 24 * 3600),
      reuseGraceMs: integer('REFRESH_REUSE_GRACE', 5000, 0, 60_000),
    },
    idp1,
    idp2,
    adminUsers,
    matchmaker: {
      enabled: boolean('MATCHMAKER_ENABLED', true),
      intervalMs: integer('MATCHMAKER_INTERVAL', 1000, 50, 3_600_000),
      weights,
      batchSize: integer('MATCHMAKER_BATCH', 10_000, 2, 100_000),
      ticketTtlSeconds: integer('MATCHMAKER_TICKET_TTL', 300, 1, 86_400),
      ticketsPerUser: integer('MATCHMAKER_TICKETS_PER_USER', 1, 1, 100),
      relaxation,
    },
    sessionMemberTimeoutSeconds: integer('SESSION_MEMBER_TIMEOUT', 60, 0, 86_400),
    sessionRetentionSeconds: integer('SESSION_RETENTION', 24 * 3600, 0, 366 * 24 * 3600),
    sessionPasswordAttempts: {
      perUser: integer('SESSION_PASSWORD_ATTEMPTS', 5, 1, 1000),
      perSession: integer('SESSION_PASSWORD_ATTEMPTS_PER_SESSION', 20, 1, 100_000),
    },
    listMaxBytes: integer('LIST_MAX_BYTES', 4 * 1024 * 1024, 64 * 1024, 256 * 1024 * 1024),
    rateLimit: {
      enabled: boolean('RATE_LIMIT_ENABLED', true),
      perMinute: integer('RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
      ipPerMinute: integer('RATE_LIMIT_IP_PER_MINUTE', 3000, 1, 1_000_000),
      authPerMinute: integer('RATE_LIMIT_AUTH_PER_MINUTE', 60, 1, 1_000_000),
    },
    trustProxy,
    corsOrigins,
    realtime: {
      maxSocketsPerUser: integer('REALTIME_MAX_SOCKETS_PER_USER', 5, 1, 1000),
      retentionSeconds: integer('REALTIME_RETENTION', 7 * 24 * 3600, 60, 365 * 24 * 3600),
      pingIntervalMs: integer('REALTIME_PING_INTERVAL', 30_000, 100, 3_600_000),
      maxBufferedBytes: integer('REALTIME_MAX_BUFFER', 1024 * 1024, 1024, 256 * 1024 * 1024),
      inboxMaxEvents: integer('REALTIME_INBOX_MAX', 1000, 10, 1_000_000),
    },
  };
  if (problems.length > 0) throw new EnvironmentError(problems);
  return config;
}

/**
 * MATCHMAKER_RELAXATION: `<step>%/<seconds>s`, optionally followed by `max <cap>%` (default cap 100%),
 * e.g. `10%/10s max 100%`: every 10 s of waiting a ticket's numeric ranges grow by 10% of their width,
 * up to double; `off` never relaxes.
 */
function parseRelaxation(value: string | undefined, problems: string[]): Relaxation | undefined {
  const text = value ?? '10%/10s max 100%';
  if (['off', 'none', '0'].includes(text.toLowerCase())) return undefined;
  const match = /^(\d{1,3}(?:\.\d+)?)%\s*\/\s*(\d{1,5})s(?:\s+max\s+(\d{1,4}(?:\.\d+)?)%)?$/i.exec(text);
  const relaxation = match && { stepPercent: Number(match[1]), everySeconds: Number(match[2]), maxPercent: Number(match[3] ?? 100) };
  if (!relaxation || relaxation.stepPercent <= 0 || relaxation.everySeconds < 1 || relaxation.maxPercent <= 0) {
    problems.push(`MATCHMAKER_RELAXATION must look like 10%/10s or 10%/10s max 100% (or off), got "${value}"`);
    return undefined;
  }
  return relaxation;
}

/**
 * TRUST_PROXY: true/false, or comma-separated proxy addresses, CIDR ranges and proxy-addr's names
 * (loopback, linklocal, uniquelocal). No hop count: Fastify cannot check the nearest peer with one.
 */
function parseTrustProxy(value: string | undefined, problems: string[]): boolean | string[] {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (['true', 'yes', '1'].includes(lower)) return true;
  if (['false', 'no', '0'].includes(lower)) return false;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !PROXY_RANGE_NAMES.includes(entry) && !isAddressOrRange(entry));
  if (entries.length === 0 || bad.length > 0) {
    problems.push(
      'TRUST_PROXY must be true, false, or comma-separated proxy addresses, CIDR ranges (e.g. 10.0.0.0/8) or ' +
        `${PROXY_RANGE_NAMES.join('/')}, got "${value}"`,
    );
    return false;
  }
  return entries;
}

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrRange(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) return false;
  const version = isIP(address);
  if (version === 0) return false;
  return prefix === undefined || Number(prefix) <= (version === 4 ? 32 : 128);
}

/** CORS_ORIGINS: `*`, or comma-separated origins such as https://play.example.com (scheme, host, port). */
function parseCorsOrigins(value: string | undefined, problems: string[]): string[] {
  if (value === undefined) return [];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 1 && entries[0] === '*') return ['*'];
  const origins: string[] = [];
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      if (['http:', 'https:'].includes(url.protocol) && url.origin === entry.replace(/\/$/, '').toLowerCase()) origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined) {
      problems.push(`CORS_ORIGINS entries must be origins such as https://play.example.com (no path), or * alone, got "${entry}"`);
    } else {
      origins.push(origin);
    }
  }
  return origins;
}

/** Hides the password of a connection URL so that it can be logged or shown in an error. */
export function redactUrl(value: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return value.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** Where a connection that needs a session of its own goes (DATABASE_DIRECT_URL, else DATABASE_URL). */
export function directDatabaseUrl(config: AppConfig): string | undefined {
  return config.databaseDirectUrl ?? config.databaseUrl;
}

/** DATABASE_REPLICA_URLS: comma-separated postgres:// URLs. */
function parseReplicaUrls(value: string | undefined, problems: string[]): string[] {
  const urls = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of urls) {
    let protocol = '';
    try {
      protocol = new URL(entry).protocol;
    } catch {
      // reported below
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
      problems.push(`DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs, got "${redactUrl(entry)}"`);
    }
  }
  return urls;
}
