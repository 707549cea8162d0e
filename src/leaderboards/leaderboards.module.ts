import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { EconomyModule } from '../economy/economy.module.js';
import { ItemsModule } from '../items/items.module.js';
import { PersonasModule } from '../personas/personas.module.js';
import { LeaderboardPayoutsRepository } from './leaderboard-payouts.repository.js';
import { LeaderboardPeriodsRepository } from './leaderboard-periods.repository.js';
import { LeaderboardRanksRepository } from './ranks/leaderboard-ranks.repository.js';
import { LeaderboardRecordsRepository } from './leaderboard-records.repository.js';
import { LeaderboardRecordsService } from './leaderboard-records.service.js';
import { LeaderboardWorker } from './worker/leaderboard-worker.js';
import { LeaderboardsController, PersonaLeaderboardRecordsController } from './leaderboards.controller.js';
import { LeaderboardsRepository } from './leaderboards.repository.js';
import { LeaderboardsService } from './leaderboards.service.js';
import { RankIndex } from './ranks/rank-index.js';
import { RankStructure } from './ranks/rank-structure.js';
import { RedisRankIndex } from './ranks/redis-rank-index.js';

/**
 * Leaderboards and tournaments: boards (admins), records and their ranks, periods from a schedule,
 * joins, prizes paid through the economy, moderation. PostgreSQL holds every record; RankStructure
 * keeps the ranks of the open periods, following the log of rank changes: in Redis sorted sets with
 * REDIS_URL (RedisRankIndex), in process otherwise and while Redis is away (RankIndex).
 */
@Module({
  imports: [PersonasModule, ItemsModule, EconomyModule, AuthModule],
  controllers: [LeaderboardsController, PersonaLeaderboardRecordsController],
  providers: [
    LeaderboardsService,
    LeaderboardsRepository,
    LeaderboardRecordsService,
    LeaderboardRecordsRepository,
    LeaderboardPeriodsRepository,
    LeaderboardPayoutsRepository,
    LeaderboardRanksRepository,
    RankIndex,
    RedisRankIndex,
    RankStructure,
    LeaderboardWorker,
  ],
  exports: [LeaderboardRecordsRepository, RankStructure],
})
export class LeaderboardsModule {}
