import { SetMetadata, type Type } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';

export const WRITES = 'audit:writes';
export const AUDITED_RECORD = 'audit:record';

/** Marks a GET route that writes (`@Writes()`, src/audit/audited-routes.ts) in the generated document. */
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
