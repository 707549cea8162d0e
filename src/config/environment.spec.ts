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
  it('has the defaults of CONTRACT.md section 8', () => {
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
    expect(problems).toEqual([
      expect.stringContaining('JWT_SECRET is required'),
      expect.stringContaining('IDP1_JWKS_URL'),
    ]);
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

  it('requires the idp1 and idp2 settings in complete sets', () => {
    expect(problemsOf({ IDP1_JWKS_URL: 'https://id.example.com/jwks' })).toEqual([
      expect.stringContaining('IDP1_ISSUER is required'),
    ]);
    expect(problemsOf({ IDP2_INTROSPECTION_URL: 'https://id.example.com/introspect' })).toEqual([
      expect.stringMatching(/IDP2_CLIENT_ID and IDP2_CLIENT_SECRET must be set/),
    ]);
  });

  it('checks URLs, secret length and admin entries', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://db/x' })).toEqual([expect.stringContaining('DATABASE_URL')]);
    expect(problemsOf({ JWT_SECRET: 'short' })).toEqual([expect.stringContaining('JWT_SECRET must be at least 32')]);
    expect(problemsOf({ ADMIN_USERS: 'idp1:alice,bob' })).toEqual([expect.stringContaining('"bob"')]);
  });

  it('never shows a database password in a message', () => {
    const [problem] = problemsOf({ DATABASE_URL: 'mysql://game:hunter2@db/x' });
    expect(problem).not.toContain('hunter2');
  });
});
