import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import type { Logger } from 'pino';
import { LoggerModule } from 'nestjs-pino';
import { AchievementsModule } from './achievements/achievements.module.js';
import { AssetsModule } from './assets/assets.module.js';
import { AuthModule } from './auth/auth.module.js';
import { appConfig, authConfig, databaseConfig, matchmakerConfig, securityConfig } from './config/configuration.js';
import { parseEnvironment } from './config/environment.js';
import { DatabaseModule } from './database/database.module.js';
import { HealthModule } from './health/health.module.js';
import { ItemsModule } from './items/items.module.js';
import { nestLoggerOptions, ROOT_LOGGER, RootLoggerModule } from './logging.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PersonasModule } from './personas/personas.module.js';
import { MatchmakerModule } from './matchmaker/matchmaker.module.js';
import { SecurityModule } from './security/security.module.js';
import { SessionsModule } from './sessions/sessions.module.js';
import { TicketsModule } from './tickets/tickets.module.js';
import { InventoriesModule } from './inventories/inventories.module.js';
import { SkillsModule } from './skills/skills.module.js';
import { TransactionsModule } from './transactions/transactions.module.js';

@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      // main.ts reads .env into process.env before anything else needs it (the embedded database does).
      ignoreEnvFile: true,
      load: [appConfig, databaseConfig, authConfig, matchmakerConfig, securityConfig],
      validate: (raw) => {
        parseEnvironment(raw as Record<string, string>);
        return raw;
      },
    }),
    RootLoggerModule,
    LoggerModule.forRootAsync({
      inject: [ROOT_LOGGER],
      useFactory: (logger: Logger) => nestLoggerOptions(logger),
    }),
    DatabaseModule,
    MetricsModule,
    HealthModule,
    // Before AuthModule: the rate limiter's guard must run before the JwtGuard (src/security/).
    SecurityModule,
    AuthModule,
    PersonasModule,
    ItemsModule,
    SessionsModule,
    TicketsModule,
    MatchmakerModule,
    InventoriesModule,
    TransactionsModule,
    SkillsModule,
    AssetsModule,
    AchievementsModule,
  ],
})
export class AppModule {}
