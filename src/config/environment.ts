import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Environment, type LogLevel, problemsAcross, type Relaxation } from './environment.schema.js';
import { declaredVariables, type GivenTexts } from './variables.js';

export { LOG_LEVELS, type LogLevel } from './environment.schema.js';
export { redactUrl } from './variables.js';

/**
 * The service's whole configuration, read from environment variables (docs/CONTRACT.md section 8) as
 * environment.schema.ts declares them. Every value is checked once at start; a bad one stops the service
 * with a message naming the variable, so an operator never discovers a typo from a 500 at three in the
 * morning.
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
   * src/database/statement.ts). Defaults to off when DATABASE_DIRECT_URL is set apart from DATABASE_URL,
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
  /** Guest sign-in with a device id, and devices linked to accounts (SECURITY.md, device ids). */
  device: {
    enabled: boolean;
    /** Unset: derived from the JWT secret. */
    idKey: string | undefined;
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
  /** The LiveOps console's sign-in at idp1 (docs/CONSOLE.md). */
  console: {
    oidcClientId: string | undefined;
    /** Unset: the page's origin + /console/callback. */
    oidcRedirectUri: string | undefined;
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
  /** Seconds of quiet after which the heap is compacted (metrics/memory-compactor.ts); 0: never. */
  memoryCompactIdleSeconds: number;
  /** How long an ENDED session is kept (then removed with its roster); 0: kept until deleted. */
  sessionRetentionSeconds: number;
  /** Wrong join passwords a minute (then 429), per (session, user) and per session; counted in Redis when configured. */
  sessionPasswordAttempts: {
    perUser: number;
    perSession: number;
  };
  /** Personas one user may have; one more is 409 PERSONA_LIMIT. */
  personasPerUser: number;
  /** The most bytes of records a list answer holds: a page ends early rather than pass it (X-Next-Skip says where to go on). */
  listMaxBytes: number;
  /** Requests worked on at once (security/requests-in-flight.ts); one more is answered 503 OVERLOADED. */
  requestsInFlight: number;
  leaderboards: {
    /** This instance closes ended periods and pays their prizes. */
    workerEnabled: boolean;
    intervalMs: number;
    /** How long after a period's end it is closed (writes begun before the end finish first). */
    closeDelayMs: number;
    /** How long the rank-change log is kept: how far behind a rank structure may catch up, and a page cursor's life. */
    logRetentionSeconds: number;
    /** Ranked records the in-process rank structure holds at most; larger periods are ranked from PostgreSQL. */
    ranksInMemory: number;
  };
  /** Requests per minute, counted in Redis when REDIS_URL is set, else by each instance on its own. */
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
  /** What a client may hold of an instance: its connections, and how long each part of a request may take. */
  http: HttpLimits;
  media: MediaConfig;
  realtime: {
    /** Open sockets a user may hold on one instance; one more is closed with 4429. */
    maxSocketsPerUser: number;
    /** Upgrades decided at once on one instance; one more is answered 503 before any work is spent on it. */
    upgradesInFlight: number;
    /** How long events stay in the inbox (for resuming and GET /notifications). */
    retentionSeconds: number;
    /** Between two pings of every socket; a socket that has not answered the last one is dropped. */
    pingIntervalMs: number;
    /** A socket whose unsent data passes this is a slow consumer: closed with 4413 (it may resume). */
    maxBufferedBytes: number;
    /** Events kept per user: past it, the oldest are dropped (realtime_events_dropped_total counts them). */
    inboxMaxEvents: number;
  };
  /** Cloud save: what one value and one player's storage may hold (admins write past the quotas). */
  storage: {
    valueMaxBytes: number;
    objectsPerOwner: number;
    bytesPerOwner: number;
    /** The quotas of a guest: an account whose only identities are devices. */
    guestObjectsPerOwner: number;
    guestBytesPerOwner: number;
  };
  /** Guest accounts (first device sign-ins) one address may make per window; 0: no bound. */
  guestAccounts: {
    perAddress: number;
    windowSeconds: number;
  };
}

/** Bounds on what clients hold of an instance (src/security/connection-limits.ts, request-timeouts.ts). */
export interface HttpLimits {
  /** A request's headers must arrive within this (from the connection's start, or the previous request's end). */
  headersTimeoutMs: number;
  /** A JSON body must arrive within this once its headers have (uploads excepted: see idleTimeoutMs). */
  bodyTimeoutMs: number;
  /** A connection silent this long while a request is under way is closed. */
  idleTimeoutMs: number;
  /** A keep-alive connection waits this long for its next request. */
  keepAliveTimeoutMs: number;
  /** Connections one instance holds at most, below the open-files limit. */
  maxConnections: number;
  /** Connections one client address holds at most (the socket's address; trusted proxies are exempt). */
  maxConnectionsPerAddress: number;
}

/** Uploaded media files: where they are kept, what may be uploaded, how they are served. */
export interface MediaConfig {
  /** The most bytes one file may hold. */
  maxBytes: number;
  /** Served to anyone (true) or to signed-in users only. */
  public: boolean;
  /** Media types an upload may have: `type/subtype`, or `type/*` for a whole kind. */
  types: string[];
  /** What a stored file's `uri` starts with (no trailing slash). */
  baseUrl: string;
  /** The local store's folder (when `s3` is undefined). */
  directory: string;
  /** How long an upload may take; leftovers older than this are swept. */
  uploadTtlSeconds: number;
  /** Between two sweeps of this instance; 0: it does not sweep. */
  sweepIntervalSeconds: number;
  /** The S3-compatible store, when MEDIA_S3_BUCKET is set. */
  s3:
    | {
        bucket: string;
        endpoint: string | undefined;
        region: string;
        credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
        forcePathStyle: boolean;
      }
    | undefined;
}

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
  const environment = plainToInstance(Environment, givenTexts(raw));
  const problems = [
    // One problem per variable: a bad integer would otherwise fail IsInt, Min and Max, with one message.
    ...validateSync(environment, { stopAtFirstError: true }).flatMap((error) => Object.values(error.constraints ?? {})),
    ...problemsAcross(environment),
  ];
  if (problems.length > 0) throw new EnvironmentError(problems);
  return toAppConfig(environment);
}

/** The declared variables' texts, trimmed (an empty one is unset), defaults filled in as if written. */
function givenTexts(raw: RawEnvironment): GivenTexts {
  const variables = declaredVariables(Environment);
  const given: Record<string, string | undefined> = {};
  for (const { name, default: fallback } of variables) {
    given[name] = raw[name]?.trim() || (typeof fallback === 'string' ? fallback : undefined);
  }
  // Defaults that depend on other variables see theirs, defaults included.
  for (const { name, default: fallback } of variables) {
    if (given[name] === undefined && typeof fallback === 'function') given[name] = fallback(given);
  }
  return given;
}

function toAppConfig(environment: Environment): AppConfig {
  return {
    nodeEnv: environment.NODE_ENV,
    isProduction: environment.NODE_ENV === 'production',
    port: environment.PORT,
    host: environment.HOST,
    databaseUrl: environment.DATABASE_URL,
    databaseDirectUrl: environment.DATABASE_DIRECT_URL,
    preparedStatements: environment.DATABASE_PREPARED_STATEMENTS,
    redisUrl: environment.REDIS_URL,
    replicas: {
      urls: environment.DATABASE_REPLICA_URLS ?? [],
      maxLagMs: environment.REPLICA_MAX_LAG * 1000,
    },
    dataDir: resolve(environment.DATA_DIR),
    logLevel: environment.LOG_LEVEL,
    anonymousWrites: environment.ANONYMOUS_WRITES,
    jwt: {
      secret: environment.JWT_SECRET,
      ttlSeconds: environment.JWT_TTL,
      issuer: environment.JWT_ISSUER,
      audience: environment.JWT_AUDIENCE,
    },
    device: {
      enabled: environment.DEVICE_AUTH_ENABLED,
      idKey: environment.DEVICE_ID_KEY,
    },
    sessions: {
      refreshTtlSeconds: environment.REFRESH_TTL,
      reuseGraceMs: environment.REFRESH_REUSE_GRACE,
    },
    idp1: {
      jwksUrl: environment.IDP1_JWKS_URL,
      issuer: environment.IDP1_ISSUER,
      audience: environment.IDP1_AUDIENCE,
      jwksCooldownSeconds: environment.IDP1_JWKS_COOLDOWN,
    },
    console: {
      oidcClientId: environment.CONSOLE_OIDC_CLIENT_ID,
      oidcRedirectUri: environment.CONSOLE_OIDC_REDIRECT_URI,
    },
    idp2: {
      introspectionUrl: environment.IDP2_INTROSPECTION_URL,
      clientId: environment.IDP2_CLIENT_ID,
      clientSecret: environment.IDP2_CLIENT_SECRET,
    },
    adminUsers: environment.ADMIN_USERS ?? [],
    matchmaker: {
      enabled: environment.MATCHMAKER_ENABLED,
      intervalMs: environment.MATCHMAKER_INTERVAL,
      weights: environment.MATCHMAKER_WEIGHTS,
      batchSize: environment.MATCHMAKER_BATCH,
      ticketTtlSeconds: environment.MATCHMAKER_TICKET_TTL,
      ticketsPerUser: environment.MATCHMAKER_TICKETS_PER_USER,
      relaxation: environment.MATCHMAKER_RELAXATION || undefined,
    },
    sessionMemberTimeoutSeconds: environment.SESSION_MEMBER_TIMEOUT,
    memoryCompactIdleSeconds: environment.MEMORY_COMPACT_IDLE,
    sessionRetentionSeconds: environment.SESSION_RETENTION,
    sessionPasswordAttempts: {
      perUser: environment.SESSION_PASSWORD_ATTEMPTS,
      perSession: environment.SESSION_PASSWORD_ATTEMPTS_PER_SESSION,
    },
    personasPerUser: environment.PERSONAS_PER_USER,
    listMaxBytes: environment.LIST_MAX_BYTES,
    requestsInFlight: environment.HTTP_REQUESTS_IN_FLIGHT,
    leaderboards: {
      workerEnabled: environment.LEADERBOARD_WORKER_ENABLED,
      intervalMs: environment.LEADERBOARD_INTERVAL,
      closeDelayMs: environment.LEADERBOARD_CLOSE_DELAY,
      logRetentionSeconds: environment.LEADERBOARD_LOG_RETENTION,
      ranksInMemory: environment.LEADERBOARD_RANKS_IN_MEMORY,
    },
    rateLimit: {
      enabled: environment.RATE_LIMIT_ENABLED,
      perMinute: environment.RATE_LIMIT_PER_MINUTE,
      ipPerMinute: environment.RATE_LIMIT_IP_PER_MINUTE,
      authPerMinute: environment.RATE_LIMIT_AUTH_PER_MINUTE,
    },
    trustProxy: environment.TRUST_PROXY,
    // `new URL()` lower-cases the scheme and host and drops the trailing slash, as browsers send an Origin.
    corsOrigins: (environment.CORS_ORIGINS ?? []).map((origin) => (origin === '*' ? origin : new URL(origin).origin)),
    http: {
      headersTimeoutMs: environment.HTTP_HEADERS_TIMEOUT,
      bodyTimeoutMs: environment.HTTP_BODY_TIMEOUT,
      idleTimeoutMs: environment.HTTP_IDLE_TIMEOUT,
      keepAliveTimeoutMs: environment.HTTP_KEEP_ALIVE_TIMEOUT,
      maxConnections: environment.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerAddress: environment.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
    },
    media: {
      maxBytes: environment.MEDIA_MAX_BYTES,
      public: environment.MEDIA_PUBLIC,
      types: environment.MEDIA_TYPES.map((type) => type.toLowerCase()),
      baseUrl: environment.MEDIA_BASE_URL.replace(/\/+$/, ''),
      directory: resolve(environment.MEDIA_DIR),
      uploadTtlSeconds: environment.MEDIA_UPLOAD_TTL,
      sweepIntervalSeconds: environment.MEDIA_SWEEP_INTERVAL,
      s3: environment.MEDIA_S3_BUCKET
        ? {
            bucket: environment.MEDIA_S3_BUCKET,
            endpoint: environment.MEDIA_S3_ENDPOINT,
            region: environment.MEDIA_S3_REGION,
            credentials:
              environment.MEDIA_S3_ACCESS_KEY_ID && environment.MEDIA_S3_SECRET_ACCESS_KEY
                ? { accessKeyId: environment.MEDIA_S3_ACCESS_KEY_ID, secretAccessKey: environment.MEDIA_S3_SECRET_ACCESS_KEY }
                : undefined,
            forcePathStyle: environment.MEDIA_S3_FORCE_PATH_STYLE,
          }
        : undefined,
    },
    realtime: {
      maxSocketsPerUser: environment.REALTIME_MAX_SOCKETS_PER_USER,
      upgradesInFlight: environment.REALTIME_UPGRADES_IN_FLIGHT,
      retentionSeconds: environment.REALTIME_RETENTION,
      pingIntervalMs: environment.REALTIME_PING_INTERVAL,
      maxBufferedBytes: environment.REALTIME_MAX_BUFFER,
      inboxMaxEvents: environment.REALTIME_INBOX_MAX,
    },
    storage: {
      valueMaxBytes: environment.STORAGE_VALUE_MAX_BYTES,
      objectsPerOwner: environment.STORAGE_OBJECTS_PER_OWNER,
      bytesPerOwner: environment.STORAGE_BYTES_PER_OWNER,
      // A guest never holds more than a player.
      guestObjectsPerOwner: Math.min(environment.STORAGE_GUEST_OBJECTS_PER_OWNER, environment.STORAGE_OBJECTS_PER_OWNER),
      guestBytesPerOwner: Math.min(environment.STORAGE_GUEST_BYTES_PER_OWNER, environment.STORAGE_BYTES_PER_OWNER),
    },
    guestAccounts: {
      perAddress: environment.GUEST_ACCOUNTS_PER_ADDRESS,
      windowSeconds: environment.GUEST_ACCOUNT_WINDOW,
    },
  };
}

/** Where a connection that needs a session of its own goes (DATABASE_DIRECT_URL, else DATABASE_URL). */
export function directDatabaseUrl(config: AppConfig): string | undefined {
  return config.databaseDirectUrl ?? config.databaseUrl;
}
