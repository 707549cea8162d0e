import { HttpStatus } from '@nestjs/common';
import type { ServerOptions } from 'node:http';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import { type ErrorBody, ErrorCode } from '../common/errors.js';
import type { HttpLimits } from '../config/environment.js';
import type { BackgroundJobs } from '../metrics/background-jobs.js';

/**
 * How long each part of a request may take, as Node.js and Fastify bound it (createFastifyAdapter):
 * the headers (HTTP_HEADERS_TIMEOUT: Node.js answers 408 through the adapter's clientErrorHandler),
 * silence while a request is under way (HTTP_IDLE_TIMEOUT, the socket's timeout: closed) and between
 * two requests of a keep-alive connection (HTTP_KEEP_ALIVE_TIMEOUT). Node.js's own `requestTimeout`
 * stays off: it bounds every request whole, body included, and would cut off a legitimate upload of a
 * large file on a slow line. JSON bodies get a bound of their own instead (limitBodyTime); an upload,
 * streamed as it arrives, is bounded by the idle timeout (a stalled upload is closed) and by
 * MEDIA_UPLOAD_TTL (a slow one ends with 408).
 */
export function timeoutOptions(
  limits: HttpLimits,
): Required<Pick<FastifyServerOptions, 'connectionTimeout' | 'keepAliveTimeout' | 'requestTimeout'>> & { http: ServerOptions } {
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: 0,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: 0,
      // How often Node.js looks for headers past their time: every 30 s by default, which would let a
      // headers timeout of 10 s run to 40.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  };
}

/**
 * HTTP_BODY_TIMEOUT: a JSON body must have arrived this long after its headers, or the request is
 * answered 408 REQUEST_TIMEOUT with the error body, and its connection closed (Node.js closes it once
 * the answer is out: `Connection: close`, and the body will never be read to its end). The body
 * parser still waiting then fails with the connection, and Fastify drops what it says: the request
 * has its answer. Routes that stream their body (uploads) are left to the idle timeout and
 * MEDIA_UPLOAD_TTL. A timer, not a stream in the body's way: every write request passes here.
 */
export function limitBodyTime(fastify: FastifyInstance, timeoutMs: number, jobs: BackgroundJobs): void {
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    if (awaitsJsonBody(request)) {
      const deadline = jobs.after('body-timeout', timeoutMs, () => {
        if (reply.sent || request.raw.complete) return;
        const body: ErrorBody = {
          status: HttpStatus.REQUEST_TIMEOUT,
          code: ErrorCode.REQUEST_TIMEOUT,
          message: `the body did not arrive within ${timeoutMs} ms of the headers (HTTP_BODY_TIMEOUT)`,
          requestId: request.id,
        };
        void reply.code(body.status).header('Connection', 'close').type('application/json; charset=utf-8').send(body);
      });
      request.raw.once('end', () => clearTimeout(deadline));
      request.raw.once('close', () => clearTimeout(deadline));
    }
    done(null, payload);
  });
}

/** Whether Fastify will read a body for the request's parser: a body announced, on a method that has one, on a route that does not stream it. */
function awaitsJsonBody(request: FastifyRequest): boolean {
  if (request.routeOptions.config.streamsBody === true) return false;
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
