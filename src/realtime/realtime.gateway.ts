import { type OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import type { GrantedRequest } from './realtime.adapter.js';
import { RealtimeAuth } from './realtime.auth.js';
import { CloseCode, RealtimeHub } from './realtime.hub.js';

/**
 * `GET /realtime`, a WebSocket on the service's own port (docs/REALTIME.md). The upgrade was decided by
 * RealtimeWsAdapter; the socket joins the hub, which sends the user's events. Clients send nothing the
 * server reads (pings are answered by the WebSocket layer).
 */
@WebSocketGateway({ path: '/realtime' })
export class RealtimeGateway implements OnGatewayConnection {
  constructor(
    private readonly hub: RealtimeHub,
    private readonly auth: RealtimeAuth,
  ) {}

  async handleConnection(socket: WebSocket, request: GrantedRequest): Promise<void> {
    const grant = request.realtime;
    if (!grant) {
      socket.close(1008, 'not authorized');
      return;
    }
    await this.hub.attach(socket, grant);
    // A revocation that came between the upgrade's check and joining the hub found no socket to close.
    if (await this.auth.isRevoked(grant)) socket.close(CloseCode.REVOKED, 'session revoked: sign in again');
  }
}
