import { applyDecorators, SetMetadata, type Type } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Caller } from '../common/auth.decorators.js';

export const WRITES = 'audit:writes';
export const AUDITED_RECORD = 'audit:record';

/**
 * A GET route that changes state (the interface document's join, leave and unlock): the admin audit
 * records it like a POST.
 */
export const Writes = () => applyDecorators(SetMetadata(WRITES, true), ApiExtension(WRITES_EXTENSION, true));

/** Marks those routes in the generated document, which then lists `X-Audit-Reason` on them (src/openapi/). */
export const WRITES_EXTENSION = 'x-writes';

/** What reads a controller's record by the route's `id`, for the audit's "before". */
export interface RecordReader {
  findOne(uid: string, caller: Caller): Promise<unknown>;
}

/**
 * The service that reads the records this controller's `{id}` routes change: the admin audit keeps
 * what it answered just before an admin's write as the entry's "before".
 */
export const AuditedRecord = (reader: Type<RecordReader>) => SetMetadata(AUDITED_RECORD, reader);
