import { Module } from '@nestjs/common';
import { AchievementsModule } from '../achievements/achievements.module.js';
import { LeaderboardsModule } from '../leaderboards/leaderboards.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { UsersController } from './users.controller.js';
import { UsersService } from './users.service.js';

/**
 * The user account's routes: the player's own (/account: profile and linked identities) and the
 * admins' (/users: bans, the audit, support cases). The record itself, User and its identities, lives
 * in auth/users/: sign-in creates it and every feature refers to it, while these routes use the
 * sign-in sessions, achievements and leaderboards, so one folder for both would be a cycle.
 */
@Module({
  imports: [AuthModule, AchievementsModule, LeaderboardsModule],
  controllers: [AccountController, UsersController],
  providers: [AccountService, UsersService],
})
export class UsersModule {}
