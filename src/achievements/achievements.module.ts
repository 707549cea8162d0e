import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AchievementUnlock } from './achievement-unlock.entity.js';
import { AchievementDefinition } from './achievement.entity.js';
import { AchievementUnlocksService } from './achievement-unlocks.service.js';
import { AchievementsController } from './achievements.controller.js';
import { AchievementsService } from './achievements.service.js';

/** Achievement definitions (catalog data) and the users' unlocks of them. */
@Module({
  imports: [TypeOrmModule.forFeature([AchievementDefinition, AchievementUnlock])],
  controllers: [AchievementsController],
  providers: [AchievementsService, AchievementUnlocksService],
  exports: [AchievementsService, AchievementUnlocksService],
})
export class AchievementsModule {}
