import { IncomingMessage } from 'node:http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { errorCodes, type FastifyInstance, type FastifyRequest, type onSendHookHandler, type preParsingHookHandler } from 'fastify';
import type { SourceChunks } from './media-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's body is a file's bytes, handed to it as a stream (uploads): @RecordResponse's `streamsBody`. */
    streamsBody?: boolean;
  }
}

/** What an upload route receives: the body as it arrives, and what the client said it is. */
export interface StreamedBody {
  /** The request's bytes, unread; undefined when it has no body. */
  stream: NodeJS.ReadableStream | undefined;
  /** The Content-Type the client sent (the file's type), as sent. */
  contentType: string | undefined;
  /** Content-Length, when the client sent one (a chunked upload has none). */
  contentLength: number | undefined;
  /**
   * `disposable` when the stream is the request as it came over a socket: Node's HTTP parser copies each
   * piece of a body into memory of its own, which nothing else reads. An in-process request
   * (`app.inject()`) hands on the caller's own buffers: `shared`.
   */
  chunks: SourceChunks;
}

/** The Content-Type under which the body of a `streamsBody` route reaches its parser, whatever the client sent. */
const STREAMED = 'application/x-game-backend-streamed-body';
const SENT_CONTENT_TYPE = Symbol('sent content type');

type StreamedRequest = FastifyRequest & { [SENT_CONTENT_TYPE]?: string };

/**
 * Lets upload routes read their body as a stream, in whatever type the file has, while every other
 * route keeps taking JSON only (1 MiB, 415 otherwise). Fastify picks a body parser by Content-Type
 * before the route runs, and the JSON parser buffers: so a `streamsBody` route's Content-Type is kept
 * aside and replaced by one whose parser passes the stream through, untouched. Such a route answered
 * before its body was read (refused, or cut off mid-stream) closes the connection rather than read on.
 */
export function acceptStreamedBodies(fastify: FastifyInstance): void {
  const keepContentType: preParsingHookHandler = (request: StreamedRequest, _reply, payload, done) => {
    request[SENT_CONTENT_TYPE] = request.headers['content-type'];
    request.raw.headers['content-type'] = STREAMED;
    done(null, payload);
  };
  const closeUnlessRead: onSendHookHandler = (request, reply, payload, done) => {
    if (request.raw.complete === false) void reply.header('Connection', 'close');
    done(null, payload);
  };
  // On the upload routes alone: every other request runs no hook of theirs.
  fastify.addHook('onRoute', (route) => {
    if (route.config?.streamsBody !== true) return;
    route.preParsing = [keepContentType, ...[route.preParsing ?? []].flat()];
    route.onSend = [...[route.onSend ?? []].flat(), closeUnlessRead];
  });
  fastify.addContentTypeParser(STREAMED, (request, payload, done) => {
    if (request.routeOptions.config.streamsBody === true) done(null, payload);
    else done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
  });
}

/** The body of a `streamsBody` route (see acceptStreamedBodies). */
export const UploadedBytes = createParamDecorator((_data: unknown, context: ExecutionContext): StreamedBody => {
  const request = context.switchToHttp().getRequest<StreamedRequest>();
  const length = request.headers['content-length'];
  return {
    stream: request.body as NodeJS.ReadableStream | undefined,
    contentType: request[SENT_CONTENT_TYPE],
    contentLength: length === undefined ? undefined : Number(length),
    // The request itself, not a stream a hook put in its place (which may hand on buffers it reuses).
    chunks: request.body instanceof IncomingMessage ? 'disposable' : 'shared',
  };
});
