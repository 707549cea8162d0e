import { Module } from '@nestjs/common';
import { MatchmakerService } from './matchmaker.service.js';

@Module({
  providers: [MatchmakerService],
  exports: [MatchmakerService],
})
export class MatchmakerModule {}
