import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type INestApplicationContext, Logger } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { ServerOptions, WebSocket, WebSocketServer } from 'ws';
import { retryAfterOf, toErrorBody } from '../common/api-exception.filter.js';
import { type RealtimeAuth, type SocketGrant } from './realtime.auth.js';

/** The grant the upgrade was given, for the gateway's handleConnection. */
export type GrantedRequest = IncomingMessage & { realtime?: SocketGrant };

const logger = new Logger('Realtime');

/**
 * Nest's `ws` adapter, deciding each upgrade before a socket opens: a refused one is answered with its
 * HTTP status (429, 401, 400) and the JSON error body, as any refused request is.
 */
export class RealtimeWsAdapter extends WsAdapter {
  constructor(
    app: INestApplicationContext,
    private readonly auth: RealtimeAuth,
  ) {
    super(app);
  }

  override create(port: number, options?: Record<string, unknown> & ServerOptions): unknown {
    const verifyClient: ServerOptions['verifyClient'] = ({ req }, done) => {
      const request = req as GrantedRequest;
      this.auth.grant(request).then(
        (grant) => {
          request.realtime = grant;
          done(true);
        },
        (error: unknown) => {
          const header = request.headers['x-request-id'];
          const requestId = typeof header === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(header) ? header : randomUUID();
          const body = toErrorBody(error, requestId);
          const retryAfter = retryAfterOf(error, body);
          done(false, body.status, JSON.stringify(body), {
            'Content-Type': 'application/json; charset=utf-8',
            'X-Request-Id': requestId,
            ...(retryAfter !== undefined && { 'Retry-After': String(retryAfter) }),
          });
        },
      );
    };
    // Clients send nothing the server reads: a frame of more than a few KiB closes the socket (1009).
    return super.create(port, { ...options, verifyClient, maxPayload: 4096 } as never);
  }

  /**
   * Nest's handler logs each socket error at error level with its stack. Those errors are a client's
   * malformed frames, and ws has already closed the socket with the code that says why (1002, 1007,
   * 1009): a warning line naming the user is all an operator needs, and a client sending garbage on
   * purpose must not be able to fill the log with stacks.
   */
  override bindErrorHandler(server: WebSocketServer): WebSocketServer {
    server.on('connection', (socket: WebSocket, request: GrantedRequest) => {
      socket.on('error', (error: Error & { code?: string }) => {
        logger.warn(`closed a socket of user ${request.realtime?.userUid} on a malformed frame: ${error.message} (${error.code})`);
      });
    });
    server.on('error', (error) => logger.error(error));
    return server;
  }

  /**
   * No client messages are handled (the protocol is server to client), so no per-socket message
   * pipeline is built: Nest's would hold rxjs subscriptions for every open socket, for nothing.
   */
  override bindMessageHandlers(): void {}
}
