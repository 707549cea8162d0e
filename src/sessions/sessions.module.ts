import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { RealtimeModule } from '../realtime/realtime.module.js';
import { SessionPasswordAttempts } from './session-password-attempts.js';
import { SessionLivenessService } from './session-liveness.service.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

@Module({
  imports: [RealtimeModule, AuthModule],
  controllers: [SessionsController],
  providers: [SessionsService, SessionsRepository, SessionLivenessService, SessionPasswordAttempts],
  exports: [SessionsRepository],
})
export class SessionsModule {}
