import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { MatchmakerService } from './matchmaker.service.js';

@Module({
  imports: [SessionsModule, TicketsModule],
  providers: [MatchmakerService],
  exports: [MatchmakerService],
})
export class MatchmakerModule {}
