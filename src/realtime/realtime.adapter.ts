import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpStatus, type INestApplicationContext, Logger } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { ServerOptions, WebSocket, WebSocketServer } from 'ws';
import { retryAfterOf, toErrorBody } from '../common/api-exception.filter.js';
import { ApiException, ErrorCode } from '../common/errors.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { rawErrorAnswer } from '../security/http-security.js';
import { type RealtimeAuth, type SocketGrant } from './realtime.auth.js';

/** The grant the upgrade was given, for the gateway's handleConnection. */
export type GrantedRequest = IncomingMessage & { realtime?: SocketGrant };

const logger = new Logger('Realtime');

/**
 * Nest's `ws` adapter, deciding each upgrade before a socket opens: a refused one is answered with its
 * HTTP status (429, 401, 400, 503) and the JSON error body, as any refused request is. At most
 * REALTIME_UPGRADES_IN_FLIGHT upgrades are being decided at once: each holds a socket and waits on the
 * rate limits, the database and Redis, and a flood of them would otherwise pile up behind a slow
 * database without bound. One more is answered 503 at once, before any of that work.
 */
export class RealtimeWsAdapter extends WsAdapter {
  private inFlight = 0;

  constructor(
    app: INestApplicationContext,
    private readonly auth: RealtimeAuth,
    private readonly metrics: Pick<MetricsService, 'countUpgradeShed'>,
    private readonly maxInFlight: number,
  ) {
    super(app);
  }

  override create(port: number, options?: Record<string, unknown> & ServerOptions): unknown {
    const verifyClient: ServerOptions['verifyClient'] = ({ req }, done) => {
      const request = req as GrantedRequest;
      const refuse = (error: unknown) => {
        const body = toErrorBody(error, requestIdOf(request));
        const retryAfter = retryAfterOf(error, body);
        done(false, body.status, JSON.stringify(body), {
          'Content-Type': 'application/json; charset=utf-8',
          'X-Request-Id': body.requestId,
          ...(retryAfter !== undefined && { 'Retry-After': String(retryAfter) }),
        });
      };
      if (this.inFlight >= this.maxInFlight) {
        this.metrics.countUpgradeShed();
        refuse(
          new ApiException(
            HttpStatus.SERVICE_UNAVAILABLE,
            ErrorCode.OVERLOADED,
            `${this.maxInFlight} sockets are opening on this instance already (REALTIME_UPGRADES_IN_FLIGHT): retry in a moment`,
            {},
            1,
          ),
        );
        return;
      }
      this.inFlight++;
      this.auth
        .grant(request)
        .finally(() => this.inFlight--)
        .then((grant) => {
          request.realtime = grant;
          done(true);
        }, refuse);
    };
    // Clients send nothing the server reads: a frame of more than a few KiB closes the socket (1009).
    return super.create(port, { ...options, verifyClient, maxPayload: 4096 } as never);
  }

  /**
   * Nest's upgrade listener reads the URL against the Host header, and when that fails (`Host: [`)
   * writes a malformed status line and leaves the socket open, held until the client lets it go. Such
   * an upgrade is answered 400 with the error body and closed here first (Nest's listener then ends
   * a socket that is closed already, which does nothing).
   */
  protected override ensureHttpServerExists(port: number, httpServer?: Server): Server | undefined {
    const known = this.httpServersRegistry.has(port);
    const server = super.ensureHttpServerExists(port, httpServer);
    if (!known) {
      server?.prependListener('upgrade', (request: IncomingMessage, socket: Duplex) => {
        if (URL.canParse(request.url ?? '/', `ws://${request.headers.host}/`)) return;
        const body = {
          status: 400,
          code: ErrorCode.MALFORMED_REQUEST,
          message: 'the Host header is not a host name',
          requestId: requestIdOf(request),
        };
        if (socket.writable) socket.write(rawErrorAnswer(body));
        socket.destroy();
      });
    }
    return server;
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

/** A gateway's sane X-Request-Id, as genReqId keeps it for REST requests, else a new one. */
function requestIdOf(request: IncomingMessage): string {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(header) ? header : randomUUID();
}
