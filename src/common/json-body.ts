import { HttpStatus } from '@nestjs/common';
import { errorCodes } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiException, badRequest, ErrorCode } from './errors.js';

/** What a route's JSON body may hold besides its bytes: values (objects, arrays and scalars) and levels. */
export interface JsonShapeLimit {
  nodes: number;
  depth: number;
}

/**
 * A JSON body, measured on its text first and only then parsed as Fastify would (secure-json-parse):
 * JSON.parse allocates every object it reads, and a megabyte of `{},{},…` costs a few hundred
 * milliseconds of the event loop and hundreds of megabytes of heap before anything could judge it.
 * Refused, with the reason: more values or levels than the route takes, a `__proto__` key, or a
 * `constructor` key holding `prototype` (either could change the prototypes of the objects the service
 * builds from the body: prototype poisoning).
 */
export function parseJsonBody(text: string, limit: JsonShapeLimit): unknown {
  const over = jsonTextOver(text, limit);
  if (over === 'depth') {
    throw badRequest(`the body nests deeper than ${limit.depth} levels`, [
      { field: 'body', message: `nests deeper than ${limit.depth} levels` },
    ]);
  }
  if (over === 'nodes') {
    throw new ApiException(
      HttpStatus.PAYLOAD_TOO_LARGE,
      ErrorCode.PAYLOAD_TOO_LARGE,
      `the body holds more than ${limit.nodes} JSON values, this route's limit`,
      { errors: [{ field: 'body', message: `holds more than ${limit.nodes} values` }] },
    );
  }
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
 * Whether a JSON text holds more values than `limit.nodes` or nests deeper than `limit.depth` (the
 * outermost value is level 1), read off its characters in one pass without building anything. A value
 * starts at the top, after a `:`, and at each element of an array. Kept here because no maintained
 * parser counts without allocating. A text that is not JSON gives some answer; JSON.parse then refuses it.
 */
export function jsonTextOver(text: string, limit: JsonShapeLimit): 'nodes' | 'depth' | undefined {
  // Which open containers are arrays, by level; and whether the array just opened has had an element.
  const inArray = new Uint8Array(limit.depth + 2);
  let depth = 0;
  let nodes = 1;
  let awaitingFirst = false;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) continue;
    if (awaitingFirst) {
      awaitingFirst = false;
      if (code !== CLOSE_ARRAY && ++nodes > limit.nodes) return 'nodes';
    }
    switch (code) {
      case QUOTE:
        index = stringEnd(text, index);
        break;
      case COLON:
        if (++nodes > limit.nodes) return 'nodes';
        break;
      case COMMA:
        if (inArray[depth] === 1 && ++nodes > limit.nodes) return 'nodes';
        break;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (++depth > limit.depth) return 'depth';
        inArray[depth] = code === OPEN_ARRAY ? 1 : 0;
        awaitingFirst = code === OPEN_ARRAY;
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        if (depth > 0) depth--;
        break;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opened at `start` (the text's end when none does). */
function stringEnd(text: string, start: number): number {
  let index = start;
  for (;;) {
    index = text.indexOf('"', index + 1);
    if (index === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(index - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return index;
  }
}
