import { Module } from '@nestjs/common';
import { PersonasModule } from '../personas/personas.module.js';
import { SkillsController } from './skills.controller.js';
import { SkillsRepository } from './skills.repository.js';
import { SkillsService } from './skills.service.js';

@Module({
  imports: [PersonasModule],
  controllers: [SkillsController],
  providers: [SkillsService, SkillsRepository],
})
export class SkillsModule {}
