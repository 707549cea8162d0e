import { HttpStatus } from '@nestjs/common';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { toErrorBody } from './api-exception.filter.js';
import secureJson from 'secure-json-parse';
import { ApiException, badRequest, ErrorCode } from './errors.js';

/** What a route's JSON body may hold besides its bytes: values (objects, arrays and scalars) and levels. */
export interface JsonShapeLimit {
  nodes: number;
  depth: number;
}

/** The answer to a body past its route's values or levels: 413 for values, 400 for levels. */
export function jsonShapeRefusal(over: 'nodes' | 'depth', limit: JsonShapeLimit): ApiException {
  return over === 'depth'
    ? badRequest(`the body nests deeper than ${limit.depth} levels`, [
        { field: 'body', message: `nests deeper than ${limit.depth} levels` },
      ])
    : new ApiException(
        HttpStatus.PAYLOAD_TOO_LARGE,
        ErrorCode.PAYLOAD_TOO_LARGE,
        `the body holds more than ${limit.nodes} JSON values, this route's limit`,
        {
          errors: [{ field: 'body', message: `holds more than ${limit.nodes} values` }],
        },
      );
}

/**
 * A JSON body, measured on its bytes first and only then parsed as Fastify would (secure-json-parse):
 * JSON.parse allocates every object it reads, and a megabyte of `{},{},…` costs a few hundred
 * milliseconds of the event loop and hundreds of megabytes of heap before anything could judge it.
 * Refused, with the reason: more values or levels than the route takes, a `__proto__` key, or a
 * `constructor` key holding `prototype` (either could change the prototypes of the objects the service
 * builds from the body: prototype poisoning).
 */
export function parseJsonBody(body: Buffer, limit: JsonShapeLimit): unknown {
  const over = new JsonShapeCounter(limit).feed(body);
  if (over) throw jsonShapeRefusal(over, limit);
  const text = body.toString();
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    // secure-json-parse says the same of both keys: the text tells which it found.
    if (error instanceof Error && /forbidden prototype property/.test(error.message)) {
      throw /"(?:_|\\u005[fF]){2}proto/.test(text)
        ? badRequest('the body holds a "__proto__" key, which is refused: it could change object prototypes', [
            { field: 'body', message: 'holds a "__proto__" key' },
          ])
        : badRequest('the body holds a "constructor" key with a "prototype", which is refused: it could change object prototypes', [
            { field: 'body', message: 'holds "constructor.prototype"' },
          ]);
    }
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * Counts the values of a JSON text and the levels it nests (the outermost value is level 1) off its
 * bytes, a piece at a time as they arrive, without building anything: `feed` says 'nodes' or 'depth'
 * as soon as the text passes `limit`, so that a body can be refused before the rest of it is read. A
 * value starts at the top, after a `:`, and at each element of an array; UTF-8 never puts these ASCII
 * bytes inside a character. Kept here because no maintained parser counts without allocating. A text
 * that is not JSON gives some answer; JSON.parse then refuses it.
 */
export class JsonShapeCounter {
  private readonly inArray: Uint8Array;
  private depth = 0;
  private nodes = 1;
  private awaitingFirst = false;
  private inString = false;
  /** Backslashes that ended the last piece inside a string: they may escape the next piece's first quote. */
  private carriedBackslashes = 0;
  private over: 'nodes' | 'depth' | undefined;

  constructor(private readonly limit: JsonShapeLimit) {
    this.inArray = new Uint8Array(limit.depth + 2);
  }

  feed(bytes: Uint8Array): 'nodes' | 'depth' | undefined {
    const { limit, inArray } = this;
    const length = bytes.length;
    let index = 0;
    while (index < length && !this.over) {
      if (this.inString) {
        const quote = bytes.indexOf(QUOTE, index);
        const end = quote === -1 ? length : quote;
        let backslashes = 0;
        while (end - 1 - backslashes >= index && bytes[end - 1 - backslashes] === BACKSLASH) backslashes++;
        if (end - backslashes === 0) backslashes += this.carriedBackslashes;
        this.carriedBackslashes = 0;
        if (quote === -1) {
          this.carriedBackslashes = backslashes;
          return undefined;
        }
        if (backslashes % 2 === 0) this.inString = false;
        index = quote + 1;
        continue;
      }
      const code = bytes[index++];
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) continue;
      if (this.awaitingFirst) {
        this.awaitingFirst = false;
        if (code !== CLOSE_ARRAY && ++this.nodes > limit.nodes) this.over = 'nodes';
      }
      switch (code) {
        case QUOTE:
          this.inString = true;
          break;
        case COLON:
          if (++this.nodes > limit.nodes) this.over = 'nodes';
          break;
        case COMMA:
          if (inArray[this.depth] === 1 && ++this.nodes > limit.nodes) this.over = 'nodes';
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          if (++this.depth > limit.depth) this.over = 'depth';
          else {
            inArray[this.depth] = code === OPEN_ARRAY ? 1 : 0;
            this.awaitingFirst = code === OPEN_ARRAY;
          }
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          if (this.depth > 0) this.depth--;
          break;
      }
    }
    return this.over;
  }
}

/** Whether a whole JSON text holds more values than `limit.nodes` or nests deeper than `limit.depth`. */
export const jsonTextOver = (text: string, limit: JsonShapeLimit) => new JsonShapeCounter(limit).feed(Buffer.from(text));

/**
 * Counts a JSON body's values and levels as its pieces arrive (the body parser counts it whole again,
 * which costs little), so that a body past its route's family is answered as soon as it passes it,
 * its connection closed rather than the rest of it read: a megabyte of `{}` is refused after its first
 * few kilobytes. Routes that stream their body (uploads) are not JSON. A listener beside the body
 * parser's own, not a stream in its way: every write request passes here.
 */
export function countJsonBodiesAsTheyArrive(
  fastify: FastifyInstance,
  limitOf: (request: Pick<FastifyRequest, 'routeOptions'>) => JsonShapeLimit,
): void {
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    const type = request.headers['content-type'];
    if (!bodyIgnored(request) && request.routeOptions.config.streamsBody !== true && typeof type === 'string' && JSON_TYPE.test(type)) {
      const limit = limitOf(request);
      const counter = new JsonShapeCounter(limit);
      const count = (piece: Buffer) => {
        const over = counter.feed(piece);
        if (!over) return;
        payload.removeListener('data', count);
        payload.pause();
        if (reply.sent) return;
        const body = toErrorBody(jsonShapeRefusal(over, limit), request.id);
        void reply.code(body.status).header('Connection', 'close').type('application/json; charset=utf-8').send(body);
      };
      // Attached before the parser's own listener, in the same turn: no piece passes unseen.
      payload.on('data', count);
    }
    done(null, payload);
  });
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * A GET or HEAD has no body a route reads (RFC 9110 gives it no meaning): one sent is read and dropped,
 * never parsed, so that it can neither cost a parse nor fail a read.
 */
export const bodyIgnored = (request: Pick<FastifyRequest, 'method'>) => request.method === 'GET' || request.method === 'HEAD';
