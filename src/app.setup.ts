import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { AllowedMethods } from './common/allowed-methods.js';
import { ApiExceptionFilter, clientErrorBody, toErrorBody } from './common/api-exception.filter.js';
import { CONSOLE_PATH, serveConsole } from './console/console-site.js';
import { bodyIgnored, countJsonBodiesAsTheyArrive, type JsonShapeLimit, parseJsonBody } from './common/json-body.js';
import { BODY_NODES, LIMITS } from './common/limits.js';
import { RequestValidationPipe } from './common/validation.pipe.js';
import { sendRecordHeaders } from './common/versions.js';
import { APP_CONFIG } from './config/config.module.js';
import type { AppConfig } from './config/environment.js';
import { logRequest, ROOT_LOGGER } from './logging.js';
import { acceptStreamedBodies } from './media/streamed-body.js';
import { BackgroundJobs } from './metrics/background-jobs.js';
import { MetricsService } from './metrics/metrics.service.js';
import { createOpenApiDocument } from './openapi/openapi.document.js';
import { RealtimeWsAdapter } from './realtime/realtime.adapter.js';
import { RealtimeAuth } from './realtime/realtime.auth.js';
import { limitConnections } from './security/connection-limits.js';
import { API_HEADERS, enableCors, rawErrorAnswer, registerSecurityHeaders } from './security/http-security.js';
import { spendAddressBudgetOnRequest } from './security/rate-limit.hook.js';
import { shedRequestsPastInFlight } from './security/requests-in-flight.js';
import { RateLimiter } from './security/rate-limiter.js';
import { limitBodyTime, timeoutOptions } from './security/request-timeouts.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

export const BODY_LIMIT_BYTES = LIMITS.bodyBytes;
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Where the Swagger UI is served (its document at `${DOCS_PATH}-json`): the one HTML the service sends. */
const DOCS_PATH = '/docs';

/**
 * The Fastify adapter as the service runs it: 1 MiB bodies, the HTTP_* timeouts, request ids that may
 * come from the client, and the client's address from X-Forwarded-For only when TRUST_PROXY says which
 * proxies to believe (the rate limits count by it).
 */
export function createFastifyAdapter({ trustProxy, http }: Pick<AppConfig, 'trustProxy' | 'http'>): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    ...timeoutOptions(http),
    clientErrorHandler: answerClientError,
    // No Nest middleware runs (nestLoggerOptions), so Connect-style middleware support would only be an
    // onRequest hook on every request; a NestModule.configure() added later fails at start-up instead.
    skipMiddie: true,
    // Fastify answers a path segment over 100 characters itself (414, not our error body), but skill
    // and archetype ids may be 128 characters long: their own validation says 400 beyond that.
    routerOptions: { maxParamLength: 256 },
    trustProxy,
    // The router refuses a URL that is not valid UTF-8 once decoded, or a path parameter over that
    // limit, before any hook or Nest runs: those get the error body too, not Fastify's own.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      const body = toErrorBody(error, request.id);
      void reply
        .code(body.status)
        .headers(API_HEADERS)
        .header('X-Request-Id', request.id)
        .type('application/json; charset=utf-8')
        .send(body);
    },
    // Honour a sane X-Request-Id from a gateway, so one id follows the request through every hop.
    genReqId: (request: IncomingMessage) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID();
    },
  });
}

/**
 * Node.js's HTTP parser refuses some connections before Fastify sees a request: headers over its size
 * limit (431), headers not in by HTTP_HEADERS_TIMEOUT (408), bytes that are not HTTP/1.1 (400). There
 * is no request to answer, so the error body goes on the socket as Node.js's own answer would, and the
 * connection closes.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.write(rawErrorAnswer(clientErrorBody(error, randomUUID())));
  socket.destroy();
}

/** What the route's JSON body may hold: its family's values (@BodyNodes), and the levels every body may. */
const bodyShapeLimit = (request: Pick<FastifyRequest, 'routeOptions'>): JsonShapeLimit => ({
  nodes: BODY_NODES[request.routeOptions.config.bodyNodes ?? 'standard'],
  depth: LIMITS.bodyDepth,
});

/**
 * Everything main.ts and the e2e tests must configure alike: the bounds on connections and bodies,
 * validation, the error body, ETags, body parsing, request ids, metrics and the OpenAPI document. Call
 * before `app.init()` / `app.listen()`.
 */
export function configureApp(app: NestFastifyApplication): void {
  const config = app.get<AppConfig>(APP_CONFIG);
  registerSecurityHeaders(app, DOCS_PATH);
  enableCors(app, config.corsOrigins);
  const fastify = app.getHttpAdapter().getInstance();
  const metrics = app.get(MetricsService);
  limitConnections(fastify.server, config, metrics);
  limitBodyTime(fastify, config.http.bodyTimeoutMs, app.get(BackgroundJobs));
  fastify.server.on('clientError', (error: Error & { code?: string }) => {
    if (error.code !== 'ECONNRESET') metrics.countClientError(clientErrorBody(error, '').status);
  });
  app.useGlobalPipes(new RequestValidationPipe());
  const allowedMethods = new AllowedMethods(fastify);
  app.useGlobalFilters(new ApiExceptionFilter(allowedMethods));

  // Clients send `Content-Type: application/json` with an empty body on DELETE; Fastify would refuse
  // that (nestjs/nest#15743), so an empty JSON body counts as no body, as does a GET's. Only JSON is parsed: anything
  // else is 415 (text/plain has a built-in parser, removed here). The route's family (@BodyNodes)
  // bounds the values the text may hold before any of it is parsed.
  app.useBodyParser('application/json', { bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    if (body.length === 0 || bodyIgnored(request)) done(null, undefined);
    else {
      try {
        done(null, parseJsonBody(body, bodyShapeLimit(request)));
      } catch (error) {
        done(error as Error, undefined);
      }
    }
  });
  countJsonBodiesAsTheyArrive(fastify, bodyShapeLimit);
  fastify.removeContentTypeParser('text/plain');
  acceptStreamedBodies(fastify);
  sendRecordHeaders(fastify);

  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    done();
  });
  allowedMethods.refuseShadowedPaths(fastify);

  const logger = app.get<Logger>(ROOT_LOGGER);
  spendAddressBudgetOnRequest(fastify, app.get(RateLimiter), logger, [DOCS_PATH, `${DOCS_PATH}-json`, CONSOLE_PATH]);
  shedRequestsPastInFlight(fastify, app.get<AppConfig>(APP_CONFIG).requestsInFlight, metrics);
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    logRequest(logger, request, reply);
    done();
  });

  // /realtime: upgrades decided (and refused with the JSON error body) before a socket opens.
  app.useWebSocketAdapter(new RealtimeWsAdapter(app, app.get(RealtimeAuth), metrics, config.realtime.upgradesInFlight));

  serveConsole(fastify, config);

  SwaggerModule.setup(DOCS_PATH, app, createOpenApiDocument(app), {
    jsonDocumentUrl: `${DOCS_PATH}-json`,
    customSiteTitle: 'Game backend API',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
  });
}
