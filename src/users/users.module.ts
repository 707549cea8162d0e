import { Module } from '@nestjs/common';
import { AccountModule } from '../account/account.module.js';
import { AchievementsModule } from '../achievements/achievements.module.js';
import { LeaderboardsModule } from '../leaderboards/leaderboards.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { UsersController } from './users.controller.js';
import { UsersService } from './users.service.js';

/** The admins' side of accounts: users, bans and the audit (the sessions themselves are AuthModule's). */
@Module({
  imports: [AuthModule, AccountModule, AchievementsModule, LeaderboardsModule],
  controllers: [UsersController],
  providers: [UsersService],
})
export class UsersModule {}
