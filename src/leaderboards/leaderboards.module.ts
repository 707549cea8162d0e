import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { EconomyModule } from '../economy/economy.module.js';
import { ItemsModule } from '../items/items.module.js';
import { PersonasModule } from '../personas/personas.module.js';
import { LeaderboardPayoutsRepository } from './leaderboard-payouts.repository.js';
import { LeaderboardPeriodsRepository } from './leaderboard-periods.repository.js';
import { LeaderboardRecordsRepository } from './leaderboard-records.repository.js';
import { LeaderboardRecordsService } from './leaderboard-records.service.js';
import { LeaderboardsController, PersonaLeaderboardRecordsController } from './leaderboards.controller.js';
import { LeaderboardsRepository } from './leaderboards.repository.js';
import { LeaderboardsService } from './leaderboards.service.js';
import { FailoverRankIndex } from './ranks/failover-rank-index.js';
import { InProcessRankIndex } from './ranks/in-process-rank-index.js';
import { LeaderboardRanksRepository } from './ranks/leaderboard-ranks.repository.js';
import { RankIndex } from './ranks/rank-index.js';
import { RedisRankIndex } from './ranks/redis-rank-index.js';
import { LeaderboardWorker } from './worker/leaderboard-worker.js';

/**
 * Leaderboards and tournaments: boards (admins), records and their ranks, periods from a schedule,
 * joins, prizes paid through the economy, moderation. PostgreSQL holds every record.
 *
 * The folder reads as any resource's (controller, services, policy, entities, repositories, dto/ at
 * the top), with three parts apart that a newcomer would otherwise have to tell from the rest: rules/,
 * the pure rules with their unit specs (operators and rank keys, 64-bit scores, period schedules, page
 * cursors); ranks/, the ranks of the open periods behind one RankIndex (the in-process tree or Redis
 * sorted sets, chosen by FailoverRankIndex, both following the log of rank changes, and PostgreSQL's own
 * index past LEADERBOARD_RANKS_IN_MEMORY); worker/, the periodic closing of periods and paying of prizes
 * through the top's repositories. rules/ and ranks/ import nothing from the rest of the folder.
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
    InProcessRankIndex,
    RedisRankIndex,
    FailoverRankIndex,
    { provide: RankIndex, useExisting: FailoverRankIndex },
    LeaderboardWorker,
  ],
  exports: [LeaderboardRecordsRepository, RankIndex],
})
export class LeaderboardsModule {}
