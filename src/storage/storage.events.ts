import type { DataOf, EventDeclarations } from '../realtime/events.js';
import { StorageUpdated } from './dto/storage-answers.dto.js';

/** The events storage/ sends (docs/REALTIME.md). */
export const STORAGE_EVENTS = {
  'storage.updated': { data: StorageUpdated, description: 'Re-read the object unless you hold this version; null: it was deleted.' },
} as const satisfies EventDeclarations;

declare module '../realtime/events.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declarations above, by type
  interface EventMap extends DataOf<typeof STORAGE_EVENTS> {}
}
