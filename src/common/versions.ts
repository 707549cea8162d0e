import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';
import { type RecordBodyDto, writableFields, type WritableFields } from './record.dto.js';
import { nextSkipOf } from './page.js';
import { serializeWithStoredJson } from './stored-json.js';

/**
 * The version a write is based on: `version` in the body or `If-Match: "3"` (docs/CONTRACT.md section 3).
 * Undefined means "apply to the current record". Both given and different is a client bug: 400.
 */
export function expectedVersion(bodyVersion: number | undefined, ifMatch: string | undefined): number | undefined {
  const headerVersion = parseIfMatch(ifMatch);
  if (bodyVersion !== undefined && headerVersion !== undefined && bodyVersion !== headerVersion) {
    throw badRequest(`version ${bodyVersion} in the body disagrees with If-Match ${headerVersion}`, [
      { field: 'version', message: 'disagrees with If-Match' },
    ]);
  }
  return bodyVersion ?? headerVersion;
}

/** An update of one record as its route received it: the fields to change, and the version it builds on. */
export interface RecordUpdate<T extends RecordBodyDto> {
  fields: WritableFields<T>;
  expectedVersion: number | undefined;
}

/** Reads an update body for the record `uid`: its `uid`, when sent, must name that record (400). */
export function recordUpdate<T extends RecordBodyDto>(uid: string, body: T, ifMatch: string | undefined): RecordUpdate<T> {
  const version = expectedVersion(body.version, ifMatch);
  if (body.uid !== undefined && body.uid !== uid) {
    throw badRequest(`uid ${body.uid} in the body does not match the path`, [{ field: 'uid', message: 'does not match the path' }]);
  }
  return { fields: writableFields(body), expectedVersion: version };
}

function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,10})"?\s*$/.exec(header);
  if (!match || Number(match[1]) > 2_147_483_647) {
    throw badRequest('If-Match must hold a record version, such as "3"', [{ field: 'If-Match', message: 'not a version' }]);
  }
  return Number(match[1]);
}

/**
 * Sends `ETag: "<version>"` with the record of every route declared with @RecordResponse(), and for a
 * create `Location: <route path>/<uid>`, and `X-Next-Skip` with a list page the byte budget cut (page.ts);
 * writes stored JSON texts as they are where the route says its answer holds them (stored-json.ts). A Fastify preSerialization hook (it sees the object a handler
 * returned, before it becomes JSON) rather than a Nest interceptor: the only global interceptor made
 * Nest wrap every handler in rxjs Observables and an async scope, for one header (docs/PERFORMANCE.md).
 */
export function sendRecordHeaders(fastify: FastifyInstance): void {
  fastify.addHook('preSerialization', (request, reply, payload, done) => {
    const { config, url } = request.routeOptions;
    if (config.storedJson === true) reply.serializer(serializeWithStoredJson);
    const nextSkip = nextSkipOf(payload);
    if (nextSkip !== undefined) void reply.header('X-Next-Skip', String(nextSkip));
    if (config.sendsETag === true) {
      const record = payload as { version?: unknown; uid?: unknown } | null;
      // A record's version is a number; a storage object's, a hash of its value.
      if (typeof record?.version === 'number' || typeof record?.version === 'string') void reply.header('ETag', `"${record.version}"`);
      if (config.sendsLocation === true && reply.statusCode === 201 && typeof record?.uid === 'string') {
        void reply.header('Location', `${url}/${record.uid}`);
      }
    }
    done(null, payload);
  });
}
