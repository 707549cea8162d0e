import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';

/**
 * One JSON line per request, with the request id. Headers are not logged at all (they carry tokens),
 * and query parameters that carry secrets (a session's `?password=`) are masked in the URL.
 */
export function requestLogOptions(level: string): Params {
  return {
    pinoHttp: {
      level,
      // Fastify's genReqId (app.setup.ts) puts the request id on the raw request; pino-http reads req.id.
      quietReqLogger: true,
      autoLogging: { ignore: (request) => request.url === '/health' || request.url === '/metrics' },
      customLogLevel: (_request, response, error) =>
        error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info',
      serializers: {
        req: (request: IncomingMessage) => ({
          id: request.id,
          method: request.method,
          url: maskSecrets(request.url ?? ''),
        }),
        res: (response: ServerResponse) => ({ statusCode: response.statusCode }),
      },
      redact: { paths: ['req.headers', 'password', '*.password', 'token', '*.token'], remove: true },
    },
  };
}

const SECRET_PARAMETERS = /([?&](?:password|token|access_token|id_token)=)[^&#]*/gi;

export function maskSecrets(url: string): string {
  return url.replace(SECRET_PARAMETERS, '$1***');
}
