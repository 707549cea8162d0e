import { registerAs } from '@nestjs/config';
import { parseEnvironment } from './environment.js';

/**
 * Configuration areas for injection (`@Inject(authConfig.KEY) auth: ConfigType<typeof authConfig>`).
 * Each reads the same validated environment, so no area can disagree with another about a default.
 */
export const appConfig = registerAs('app', () => {
  const { nodeEnv, isProduction, port, host, dataDir, logLevel, anonymousWrites } = parseEnvironment();
  return { nodeEnv, isProduction, port, host, dataDir, logLevel, anonymousWrites };
});

export const databaseConfig = registerAs('database', () => {
  const { databaseUrl, dataDir } = parseEnvironment();
  return { url: databaseUrl, dataDir };
});

export const matchmakerConfig = registerAs('matchmaker', () => parseEnvironment().matchmaker);

export const authConfig = registerAs('auth', () => {
  const { jwt, idp1, idp2, adminUsers, isProduction, dataDir } = parseEnvironment();
  return { jwt, idp1, idp2, adminUsers, isProduction, dataDir };
});

export const securityConfig = registerAs('security', () => {
  const { rateLimit, trustProxy, corsOrigins } = parseEnvironment();
  return { rateLimit, trustProxy, corsOrigins };
});
