import { Module } from '@nestjs/common';
import { SecurityModule } from '../security/security.module.js';
import { RealtimeTicketsRepository } from './notifications.repository.js';
import { RealtimeAuth } from './realtime.auth.js';
import { RealtimeGateway } from './realtime.gateway.js';
import { RealtimeHub } from './realtime.hub.js';
import { RealtimeService } from './realtime.service.js';

/**
 * Pushes events to players (docs/REALTIME.md): the /realtime socket and its tickets; the routes of the
 * tickets and the inbox are NotificationsModule's, which knows every feature's events. The events themselves are written by the repositories through EventOutbox (OutboxModule).
 */
@Module({
  imports: [SecurityModule],
  providers: [RealtimeGateway, RealtimeHub, RealtimeAuth, RealtimeService, RealtimeTicketsRepository],
  exports: [RealtimeHub, RealtimeAuth, RealtimeService],
})
export class RealtimeModule {}
