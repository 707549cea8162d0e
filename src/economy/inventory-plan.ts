/**
 * What a transaction does to inventories, as pure functions: which quantities move, whether the
 * givers hold enough, and the holdings after. The processor runs them on the rows it has locked.
 */
/** The most of one item a persona may hold: the quantity column is a PostgreSQL integer (int4). */
export const MAX_QUANTITY = 2_147_483_647;

export const TRANSACTION_TYPES = ['TRADE', 'AWARD', 'REMOVAL'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export interface ItemQuantity {
  itemUid: string;
  quantity: number;
}

export interface TransactionRequest {
  type: TransactionType;
  personaOneUid: string;
  personaTwoUid: string | null;
  personaOneInventoryItems: ItemQuantity[];
  personaTwoInventoryItems: ItemQuantity[];
}

/** A change of one persona's quantity of one item; what the ledger records. */
export interface Movement {
  personaUid: string;
  itemUid: string;
  delta: number;
}

export interface Shortage {
  personaUid: string;
  itemUid: string;
  needed: number;
  held: number;
}

/** One persona's holding of one item. */
export interface Holding {
  personaUid: string;
  itemUid: string;
}

/** A holding the transaction would take past MAX_QUANTITY; `field` is the list entry that brings the item. */
export interface Overflow {
  personaUid: string;
  itemUid: string;
  field: string;
  after: number;
}

/** Quantities held, keyed by persona and item. */
export type Holdings = Map<string, number>;
export const holdingKey = (personaUid: string, itemUid: string) => `${personaUid}/${itemUid}`;

/**
 * In a TRADE persona one gives its list to persona two and persona two gives its list to persona one;
 * AWARD adds persona one's list from nothing; REMOVAL takes it away. An item in both lists of a trade
 * nets out into one movement per persona.
 */
export function planMovements(request: TransactionRequest): Movement[] {
  const deltas = new Map<string, Movement>();
  const add = (personaUid: string, itemUid: string, delta: number) => {
    const key = holdingKey(personaUid, itemUid);
    const movement = deltas.get(key) ?? { personaUid, itemUid, delta: 0 };
    movement.delta += delta;
    deltas.set(key, movement);
  };
  const { type, personaOneUid: one, personaTwoUid: two } = request;
  for (const { itemUid, quantity } of request.personaOneInventoryItems) {
    if (type === 'AWARD') add(one, itemUid, quantity);
    else if (type === 'REMOVAL') add(one, itemUid, -quantity);
    else {
      add(one, itemUid, -quantity);
      add(two!, itemUid, quantity);
    }
  }
  if (type === 'TRADE') {
    for (const { itemUid, quantity } of request.personaTwoInventoryItems) {
      add(two!, itemUid, -quantity);
      add(one, itemUid, quantity);
    }
  }
  return [...deltas.values()].filter((movement) => movement.delta !== 0);
}

/** Every giver must hold what its list gives, before anything moves (receiving does not count). */
export function findShortages(request: TransactionRequest, holdings: Holdings): Shortage[] {
  const gives: Array<[string, ItemQuantity[]]> =
    request.type === 'AWARD'
      ? []
      : request.type === 'REMOVAL'
        ? [[request.personaOneUid, request.personaOneInventoryItems]]
        : [
            [request.personaOneUid, request.personaOneInventoryItems],
            [request.personaTwoUid!, request.personaTwoInventoryItems],
          ];
  const shortages: Shortage[] = [];
  for (const [personaUid, items] of gives) {
    for (const { itemUid, quantity } of items) {
      const held = holdings.get(holdingKey(personaUid, itemUid)) ?? 0;
      if (held < quantity) shortages.push({ personaUid, itemUid, needed: quantity, held });
    }
  }
  return shortages;
}

/**
 * Every holding the transaction would take past MAX_QUANTITY, named by the list entry that brings the
 * item (the field the client would change). What a persona receives nets against what it gives of the
 * same item, as the movements do.
 */
export function findOverflows(request: TransactionRequest, holdings: Holdings): Overflow[] {
  const { type, personaOneUid: one, personaTwoUid: two, personaOneInventoryItems, personaTwoInventoryItems } = request;
  const receives: Array<[string, 'personaOneInventoryItems' | 'personaTwoInventoryItems', ItemQuantity[]]> =
    type === 'AWARD'
      ? [[one, 'personaOneInventoryItems', personaOneInventoryItems]]
      : type === 'REMOVAL'
        ? []
        : [
            [two!, 'personaOneInventoryItems', personaOneInventoryItems],
            [one, 'personaTwoInventoryItems', personaTwoInventoryItems],
          ];
  const after = applyMovements(holdings, planMovements(request));
  const overflows: Overflow[] = [];
  for (const [personaUid, list, items] of receives) {
    items.forEach(({ itemUid }, index) => {
      const quantity = after.get(holdingKey(personaUid, itemUid)) ?? 0;
      if (quantity > MAX_QUANTITY) overflows.push({ personaUid, itemUid, field: `${list}.${index}.quantity`, after: quantity });
    });
  }
  return overflows;
}

/** The personas a transaction names: persona one, and persona two in a trade. */
export function personasOf(request: TransactionRequest): string[] {
  return request.personaTwoUid ? [request.personaOneUid, request.personaTwoUid] : [request.personaOneUid];
}

/** The items a transaction names, in either list, each once. */
export function itemsOf(request: TransactionRequest): string[] {
  return [...new Set([...request.personaOneInventoryItems, ...request.personaTwoInventoryItems].map((entry) => entry.itemUid))];
}

/** The (persona, item) pairs a transaction touches: every item of either list, for each persona. */
export function affectedHoldings(request: TransactionRequest): Holding[] {
  const items = itemsOf(request);
  return personasOf(request).flatMap((personaUid) => items.map((itemUid) => ({ personaUid, itemUid })));
}

export function applyMovements(holdings: Holdings, movements: Movement[]): Holdings {
  const after = new Map(holdings);
  for (const { personaUid, itemUid, delta } of movements) {
    const key = holdingKey(personaUid, itemUid);
    after.set(key, (after.get(key) ?? 0) + delta);
  }
  return after;
}
