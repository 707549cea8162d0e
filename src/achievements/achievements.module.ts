import { Module } from '@nestjs/common';
import { AchievementsController } from './achievements.controller.js';
import { AchievementsRepository, AchievementUnlocksRepository } from './achievements.repository.js';
import { AchievementsService, AchievementUnlocksService } from './achievements.service.js';

/** Achievement definitions (catalog data) and the users' unlocks of them. */
@Module({
  controllers: [AchievementsController],
  providers: [AchievementsService, AchievementUnlocksService, AchievementsRepository, AchievementUnlocksRepository],
  exports: [AchievementUnlocksService],
})
export class AchievementsModule {}
