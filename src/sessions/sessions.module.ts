import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module.js';
import { SessionLivenessService } from './session-liveness.service.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

@Module({
  imports: [RealtimeModule],
  controllers: [SessionsController],
  providers: [SessionsService, SessionsRepository, SessionLivenessService],
  exports: [SessionsRepository],
})
export class SessionsModule {}
