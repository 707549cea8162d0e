import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module.js';
import { RealtimeController } from './realtime.controller.js';

/**
 * The REST side of realtime (tickets that open a socket from a browser, the inbox for clients without
 * one) and the catalog of every event the features send (./events.ts), which the document's event
 * schemas are made from: realtime itself knows no feature.
 */
@Module({
  imports: [RealtimeModule],
  controllers: [RealtimeController],
})
export class NotificationsModule {}
