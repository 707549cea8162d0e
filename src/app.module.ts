import { ENTITIES } from './entities.js';
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { Logger } from 'pino';
import { LoggerModule } from 'nestjs-pino';
import { AchievementsModule } from './achievements/achievements.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AssetsModule } from './assets/assets.module.js';
import { MediaModule } from './media/media.module.js';
import { AuthModule } from './auth/auth.module.js';
import { AuthPortsModule } from './auth/auth-ports.module.js';
import { JwtGuard } from './auth/jwt.guard.js';
import { ConfigModule } from './config/config.module.js';
import type { AppConfig } from './config/environment.js';
import { DatabaseModule } from './database/database.module.js';
import { FanoutModule } from './database/fanout.js';
import { ReplicasModule } from './database/replicas.js';
import { RedisModule } from './redis/redis.connection.js';
import { EconomyModule } from './economy/economy.module.js';
import { HealthModule } from './health/health.module.js';
import { ItemsModule } from './items/items.module.js';
import { LeaderboardsModule } from './leaderboards/leaderboards.module.js';
import { nestLoggerOptions, ROOT_LOGGER, RootLoggerModule } from './logging.js';
import { MatchmakerModule } from './matchmaker/matchmaker.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PersonasModule } from './personas/personas.module.js';
import { OutboxModule } from './realtime/event-outbox.js';
import { RealtimeModule } from './realtime/realtime.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { RateLimitGuard } from './security/rate-limit.guard.js';
import { SecurityModule } from './security/security.module.js';
import { SessionsModule } from './sessions/sessions.module.js';
import { SkillsModule } from './skills/skills.module.js';
import { StorageModule } from './storage/storage.module.js';
import { StatsModule } from './stats/stats.module.js';
import { TicketsModule } from './tickets/tickets.module.js';
import { UsersModule } from './users/users.module.js';

/** Wires the modules, given the configuration whoever starts the service parsed (main.ts, the tests). */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        RootLoggerModule,
        LoggerModule.forRootAsync({ inject: [ROOT_LOGGER], useFactory: (logger: Logger) => nestLoggerOptions(logger) }),
        DatabaseModule.forRoot(config, ENTITIES),
        FanoutModule,
        ReplicasModule,
        MetricsModule,
        RedisModule,
        OutboxModule,
        HealthModule,
        SecurityModule,
        AuthModule,
        AuthPortsModule,
        UsersModule,
        PersonasModule,
        ItemsModule,
        SessionsModule,
        TicketsModule,
        MatchmakerModule,
        EconomyModule,
        SkillsModule,
        StorageModule,
        AssetsModule,
        MediaModule,
        AchievementsModule,
        LeaderboardsModule,
        RealtimeModule,
        NotificationsModule,
        AuditModule,
        StatsModule,
      ],
      // The global guards, in the order they run. The rate limiter comes first, so that floods of bad
      // tokens are counted too; the JwtGuard then reads the caller (every route needs our token unless
      // it is @Public() or @OptionalAuth()). A route's own @Authorize() rule runs after both.
      providers: [
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: JwtGuard },
      ],
    };
  }
}
