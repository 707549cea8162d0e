import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PersonasModule } from '../personas/personas.module.js';
import { SkillProgress } from './skill-progress.entity.js';
import { SkillsController } from './skills.controller.js';
import { SkillsService } from './skills.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([SkillProgress]), PersonasModule],
  controllers: [SkillsController],
  providers: [SkillsService],
})
export class SkillsModule {}
