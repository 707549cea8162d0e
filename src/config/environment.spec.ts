import { openFilesLimit } from './open-files.js';
import { EnvironmentError, parseEnvironment } from './environment.js';

const problemsOf = (raw: Record<string, string>): string[] => {
  try {
    parseEnvironment(raw);
  } catch (error) {
    if (error instanceof EnvironmentError) return error.problems;
    throw error;
  }
  return [];
};

describe('parseEnvironment', () => {
  it('has the defaults of docs/CONTRACT.md section 8', () => {
    const environment = parseEnvironment({});
    expect(environment).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      logLevel: 'info',
      anonymousWrites: false,
      isProduction: false,
      adminUsers: ['idp1:admin'],
      jwt: { ttlSeconds: 3600 },
    });
    expect(environment.dataDir).toMatch(/\/\.data$/);
  });

  it('takes an empty or blank value for unset, as docker-compose.yml passes `${X:-}`', () => {
    expect(parseEnvironment({ HOST: ' ', JWT_ISSUER: '', PORT: '', ADMIN_USERS: '' })).toMatchObject({
      host: '0.0.0.0',
      port: 3000,
      jwt: { issuer: 'game-backend' },
      adminUsers: ['idp1:admin'],
    });
  });

  it('names the variable of every bad value, all at once', () => {
    const problems = problemsOf({ PORT: 'eighty', JWT_TTL: '-5', ANONYMOUS_WRITES: 'maybe', LOG_LEVEL: 'loud' });
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/PORT.*"eighty"/);
    expect(problems.join('\n')).toMatch(/JWT_TTL/);
    expect(problems.join('\n')).toMatch(/ANONYMOUS_WRITES/);
    expect(problems.join('\n')).toMatch(/LOG_LEVEL/);
  });

  it('refuses production without JWT_SECRET and an identity provider, naming both', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems).toEqual([expect.stringContaining('JWT_SECRET is required'), expect.stringContaining('IDP1_JWKS_URL')]);
  });

  it('accepts production with a secret and one provider, and gives no default admin there', () => {
    const environment = parseEnvironment({
      NODE_ENV: 'production',
      JWT_SECRET: 's'.repeat(32),
      IDP2_INTROSPECTION_URL: 'https://id.example.com/introspect',
      IDP2_CLIENT_ID: 'game',
      IDP2_CLIENT_SECRET: 'secret',
    });
    expect(environment.isProduction).toBe(true);
    expect(environment.adminUsers).toEqual([]);
  });

  it('reads the launch-day matchmaking settings, with defaults', () => {
    expect(parseEnvironment({})).toMatchObject({
      matchmaker: { ticketTtlSeconds: 300, ticketsPerUser: 1, relaxation: { stepPercent: 10, everySeconds: 10, maxPercent: 100 } },
      sessionMemberTimeoutSeconds: 60,
    });
    const set = parseEnvironment({
      MATCHMAKER_TICKET_TTL: '30',
      MATCHMAKER_TICKETS_PER_USER: '3',
      MATCHMAKER_RELAXATION: '25%/5s max 200%',
      SESSION_MEMBER_TIMEOUT: '0',
    });
    expect(set.matchmaker).toMatchObject({
      ticketTtlSeconds: 30,
      ticketsPerUser: 3,
      relaxation: { stepPercent: 25, everySeconds: 5, maxPercent: 200 },
    });
    expect(set.sessionMemberTimeoutSeconds).toBe(0);
    expect(parseEnvironment({ MATCHMAKER_RELAXATION: '5%/30s' }).matchmaker.relaxation).toEqual({
      stepPercent: 5,
      everySeconds: 30,
      maxPercent: 100,
    });
    expect(parseEnvironment({ MATCHMAKER_RELAXATION: 'off' }).matchmaker.relaxation).toBeUndefined();
    for (const bad of ['10%', '10/10s', '0%/10s', '10%/0s', 'fast']) {
      expect(problemsOf({ MATCHMAKER_RELAXATION: bad })).toEqual([expect.stringContaining('MATCHMAKER_RELAXATION')]);
    }
    expect(problemsOf({ MATCHMAKER_TICKETS_PER_USER: '0', MATCHMAKER_TICKET_TTL: '0' })).toHaveLength(2);
  });

  it('requires the idp1 and idp2 settings in complete sets', () => {
    expect(problemsOf({ IDP1_JWKS_URL: 'https://id.example.com/jwks' })).toEqual([expect.stringContaining('IDP1_ISSUER is required')]);
    expect(problemsOf({ IDP2_INTROSPECTION_URL: 'https://id.example.com/introspect' })).toEqual([
      expect.stringMatching(/IDP2_CLIENT_ID and IDP2_CLIENT_SECRET must be set/),
    ]);
  });

  it('checks URLs, secret length and admin entries', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://db/x' })).toEqual([expect.stringContaining('DATABASE_URL')]);
    expect(problemsOf({ JWT_SECRET: 'short' })).toEqual([expect.stringContaining('JWT_SECRET must be at least 32')]);
    expect(problemsOf({ ADMIN_USERS: 'idp1:alice,bob' })).toEqual([expect.stringContaining('"bob"')]);
  });

  it('reads read replicas as comma-separated URLs with a lag limit in seconds, and names bad ones without their password', () => {
    expect(parseEnvironment({}).replicas).toEqual({ urls: [], maxLagMs: 5000 });
    expect(
      parseEnvironment({ DATABASE_REPLICA_URLS: 'postgres://a:x@r1:5432/db, postgresql://a:x@r2/db', REPLICA_MAX_LAG: '2' }).replicas,
    ).toEqual({ urls: ['postgres://a:x@r1:5432/db', 'postgresql://a:x@r2/db'], maxLagMs: 2000 });
    const problems = problemsOf({ DATABASE_REPLICA_URLS: 'postgres://r1/db,mysql://u:secret@r2/db', REPLICA_MAX_LAG: '0' });
    expect(problems).toEqual([
      expect.stringMatching(/DATABASE_REPLICA_URLS.*mysql:\/\/u:\*\*\*@r2/),
      expect.stringContaining('REPLICA_MAX_LAG'),
    ]);
    expect(problems.join('\n')).not.toContain('secret');
  });

  it('prepares statements unless DATABASE_DIRECT_URL says DATABASE_URL is a transaction pooler, and lets the operator decide', () => {
    const database = 'postgresql://game@db:5432/game';
    const pooler = 'postgresql://game@pgbouncer:6432/game';
    expect(parseEnvironment({}).preparedStatements).toBe(true);
    expect(parseEnvironment({ DATABASE_URL: database }).preparedStatements).toBe(true);
    expect(parseEnvironment({ DATABASE_URL: database, DATABASE_DIRECT_URL: database }).preparedStatements).toBe(true);
    expect(parseEnvironment({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: database }).preparedStatements).toBe(false);
    expect(
      parseEnvironment({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: database, DATABASE_PREPARED_STATEMENTS: 'true' }).preparedStatements,
    ).toBe(true);
    expect(parseEnvironment({ DATABASE_PREPARED_STATEMENTS: 'no' }).preparedStatements).toBe(false);
    expect(problemsOf({ DATABASE_PREPARED_STATEMENTS: 'sometimes' })).toEqual([expect.stringContaining('DATABASE_PREPARED_STATEMENTS')]);
  });

  it('never shows a database password in a message', () => {
    const [problem] = problemsOf({ DATABASE_URL: 'mysql://game:hunter2@db/x' });
    expect(problem).not.toContain('hunter2');
  });
});

describe('parseEnvironment: rate limits, proxies and CORS', () => {
  it('limits requests by default: 600 a minute per user, 3000 per address, 60 sign-ins per address', () => {
    expect(parseEnvironment({})).toMatchObject({
      rateLimit: { enabled: true, perMinute: 600, ipPerMinute: 3000, authPerMinute: 60 },
      trustProxy: false,
      corsOrigins: [],
    });
  });

  it('reads the limits and switches them off', () => {
    const environment = parseEnvironment({
      RATE_LIMIT_ENABLED: 'false',
      RATE_LIMIT_PER_MINUTE: '120',
      RATE_LIMIT_IP_PER_MINUTE: '900',
      RATE_LIMIT_AUTH_PER_MINUTE: '10',
    });
    expect(environment.rateLimit).toEqual({ enabled: false, perMinute: 120, ipPerMinute: 900, authPerMinute: 10 });
  });

  it('names every bad limit', () => {
    const problems = problemsOf({
      RATE_LIMIT_ENABLED: 'sometimes',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_IP_PER_MINUTE: '-5',
      RATE_LIMIT_AUTH_PER_MINUTE: '1.5',
    });
    expect(problems).toEqual([
      expect.stringContaining('RATE_LIMIT_ENABLED'),
      expect.stringContaining('RATE_LIMIT_PER_MINUTE'),
      expect.stringContaining('RATE_LIMIT_IP_PER_MINUTE'),
      expect.stringContaining('RATE_LIMIT_AUTH_PER_MINUTE'),
    ]);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['10.0.0.0/8', ['10.0.0.0/8']],
    ['127.0.0.1, 192.168.0.0/16 ,fd00::/8', ['127.0.0.1', '192.168.0.0/16', 'fd00::/8']],
    ['uniquelocal,loopback', ['uniquelocal', 'loopback']],
  ])('reads TRUST_PROXY=%s', (value, expected) => {
    expect(parseEnvironment({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['2', 'everyone', '10.0.0.0/33', '300.1.1.1', '10.0.0.1/8/8', ','])('refuses TRUST_PROXY=%s', (value) => {
    expect(problemsOf({ TRUST_PROXY: value })).toEqual([expect.stringContaining('TRUST_PROXY')]);
  });

  it('reads CORS_ORIGINS as origins, or * alone', () => {
    expect(parseEnvironment({ CORS_ORIGINS: 'https://play.example.com, http://localhost:5173/' }).corsOrigins).toEqual([
      'https://play.example.com',
      'http://localhost:5173',
    ]);
    expect(parseEnvironment({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it.each(['https://play.example.com/app', 'play.example.com', 'ftp://files.example.com', '*,https://play.example.com'])(
    'refuses CORS_ORIGINS=%s',
    (value) => {
      expect(problemsOf({ CORS_ORIGINS: value })).toEqual([expect.stringContaining('CORS_ORIGINS')]);
    },
  );
});

describe('parseEnvironment: connections', () => {
  const openFiles = openFilesLimit()?.soft;

  it('bounds connections below the open-files limit by default, and refuses a bound at or above it', () => {
    const { http } = parseEnvironment({});
    if (openFiles === undefined) return expect(http.maxConnections).toBe(10_000);
    expect(http.maxConnections).toBe(Math.max(100, openFiles - 1000));
    expect(problemsOf({ HTTP_MAX_CONNECTIONS: String(openFiles) })).toEqual([
      expect.stringMatching(/HTTP_MAX_CONNECTIONS .* below the open-files limit/),
    ]);
    expect(parseEnvironment({ HTTP_MAX_CONNECTIONS: String(openFiles - 1) }).http.maxConnections).toBe(openFiles - 1);
  });

  it('reads the timeouts and bounds of the HTTP layer', () => {
    expect(parseEnvironment({ HTTP_HEADERS_TIMEOUT: '2000', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '50' }).http).toMatchObject({
      headersTimeoutMs: 2000,
      bodyTimeoutMs: 30_000,
      idleTimeoutMs: 60_000,
      keepAliveTimeoutMs: 72_000,
      maxConnectionsPerAddress: 50,
    });
    expect(problemsOf({ HTTP_BODY_TIMEOUT: '0' })).toEqual([expect.stringMatching(/HTTP_BODY_TIMEOUT/)]);
  });
});
