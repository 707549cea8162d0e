import type { DataOf, EventDeclarations } from '../realtime/events.js';
import { InventoryChange } from './dto/inventory-change.dto.js';
import { InventoryTransaction } from './transaction.entity.js';

/** The events economy/ sends (docs/REALTIME.md). */
export const ECONOMY_EVENTS = {
  'transaction.pending': { data: InventoryTransaction, description: 'A trade awaiting your persona: accept, decline.' },
  'transaction.updated': { data: InventoryTransaction, description: 'COMPLETED, DECLINED, CANCELED or FAILED.' },
  'inventory.updated': { data: InventoryChange },
} as const satisfies EventDeclarations;

declare module '../realtime/events.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declarations above, by type
  interface EventMap extends DataOf<typeof ECONOMY_EVENTS> {}
}
