import { Global, Module } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Params } from 'nestjs-pino';
import { type DestinationStream, pino, type Logger, type LoggerOptions } from 'pino';
import { APP_CONFIG } from './config/config.module.js';
import type { AppConfig } from './config/environment.js';

/** The one pino instance: Nest's own logs (through nestjs-pino) and the request lines share it. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

@Global()
@Module({
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => createRootLogger(config.logLevel),
    },
  ],
  exports: [ROOT_LOGGER],
})
export class RootLoggerModule {}

/** The service's logger: JSON lines to stdout, or to `destination` (the tests read what it writes). */
export function createRootLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    // Belt and braces: nothing should log these, but if an error object carries them they are dropped.
    redact: {
      paths: ['password', '*.password', 'token', '*.token', 'refreshToken', '*.refreshToken', '*.headers.authorization'],
      remove: true,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * nestjs-pino carries Nest's own logs, and nothing else: its pino-http middleware is not mounted on any
 * route (`forRoutes: []`). The request line is written by a Fastify onResponse hook instead
 * (`logRequest`), which sees every request, routed or not, and a log that belongs to a request names it
 * itself (the exception filter logs the request id), so no request-scoped logger is needed. Without
 * that middleware the service mounts no Nest middleware at all, and the adapter skips @fastify/middie.
 */
export function nestLoggerOptions(logger: Logger): Params {
  return { pinoHttp: { logger, autoLogging: false, quietReqLogger: true }, forRoutes: [] };
}

/**
 * One JSON line per request with the request id. Headers are not logged at all (they carry tokens),
 * and the parts of the URL that carry secrets (a session's `?password=`) are masked (maskSecrets).
 */
export function logRequest(logger: Logger, request: FastifyRequest, reply: FastifyReply): void {
  if (request.url === '/health' || request.url === '/metrics') return;
  const status = reply.statusCode;
  const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      req: requestSummary(request),
      res: { statusCode: status },
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    },
    'request completed',
  );
}

export function requestSummary(request: Pick<FastifyRequest, 'id' | 'method' | 'url'>) {
  return { id: request.id, method: request.method, url: maskSecrets(request.url) };
}

/** A secret parameter's name and its `=`: a password, any token (`access_token`, `refresh_token`…), a realtime ticket. */
const SECRET_ASSIGNMENT = /(?:password|token|ticket)\s*=/;

/**
 * The URL with every part that assigns a secret masked. Matching the text as sent missed
 * `?pass%77ord=` (Fastify decodes parameter names), and matching one decoding of the query would miss
 * a name encoded twice, or a pair behind a second `?` or a `;`, which Fastify reads as part of a value
 * or of the path but which still carries the client's secret. So the URL is cut at every `/`, `?`, `&`
 * and `;`, each piece is read as any decoder could read it (percent-decoded until nothing changes, `+`
 * as a space, in any case), and a piece whose reading assigns a secret keeps at most its name; a piece
 * still encoded after four decodings, which no client means, is masked without reading on (each
 * decoding costs a pass over the piece). Nothing depends on guessing which encoding a client or a
 * parser uses.
 */
export function maskSecrets(url: string): string {
  if (!url.includes('=') && !url.includes('%')) return url;
  return url.replace(/[^/?&;]+/g, (piece) => {
    if (!assignsSecret(piece)) return piece;
    const equals = piece.indexOf('=');
    const name = equals > 0 ? piece.slice(0, equals) : '';
    return name && !assignsSecret(name) ? `${name}=***` : '***';
  });
}

function assignsSecret(text: string): boolean {
  let reading = text;
  for (let decodings = 0; decodings <= 4; decodings++) {
    const decoded = reading
      .replace(/\+/g, ' ')
      .replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (decoded === reading) return SECRET_ASSIGNMENT.test(reading.toLowerCase());
    reading = decoded;
  }
  return true;
}
