import {
  affectedHoldings,
  applyMovements,
  findOverflows,
  findShortages,
  holdingKey,
  MAX_QUANTITY,
  planMovements,
  type TransactionRequest,
} from './inventory-plan.js';

const trade = (one: Array<[string, number]>, two: Array<[string, number]> = []): TransactionRequest => ({
  type: 'TRADE',
  personaOneUid: 'alice',
  personaTwoUid: 'bob',
  personaOneInventoryItems: one.map(([itemUid, quantity]) => ({ itemUid, quantity })),
  personaTwoInventoryItems: two.map(([itemUid, quantity]) => ({ itemUid, quantity })),
});

const holdings = (entries: Array<[string, string, number]>) =>
  new Map(entries.map(([persona, item, quantity]) => [holdingKey(persona, item), quantity]));

describe('trade planning', () => {
  it('moves persona one list to persona two and persona two list to persona one', () => {
    expect(planMovements(trade([['sword', 2]], [['gold', 5]]))).toEqual([
      { personaUid: 'alice', itemUid: 'sword', delta: -2 },
      { personaUid: 'bob', itemUid: 'sword', delta: 2 },
      { personaUid: 'bob', itemUid: 'gold', delta: -5 },
      { personaUid: 'alice', itemUid: 'gold', delta: 5 },
    ]);
  });

  it('nets an item that goes both ways, and drops a zero movement', () => {
    expect(planMovements(trade([['gold', 5]], [['gold', 3]]))).toEqual([
      { personaUid: 'alice', itemUid: 'gold', delta: -2 },
      { personaUid: 'bob', itemUid: 'gold', delta: 2 },
    ]);
    expect(planMovements(trade([['gold', 4]], [['gold', 4]]))).toEqual([]);
  });

  it('awards from nothing and removes into nothing, for persona one only', () => {
    const award: TransactionRequest = { ...trade([['gem', 3]]), type: 'AWARD', personaTwoUid: null };
    expect(planMovements(award)).toEqual([{ personaUid: 'alice', itemUid: 'gem', delta: 3 }]);
    expect(planMovements({ ...award, type: 'REMOVAL' })).toEqual([{ personaUid: 'alice', itemUid: 'gem', delta: -3 }]);
  });

  it('conserves every traded item: deltas of a trade sum to zero per item', () => {
    const movements = planMovements(
      trade(
        [
          ['sword', 2],
          ['gold', 7],
        ],
        [
          ['gold', 3],
          ['gem', 1],
        ],
      ),
    );
    const totals = new Map<string, number>();
    for (const { itemUid, delta } of movements) totals.set(itemUid, (totals.get(itemUid) ?? 0) + delta);
    expect([...totals.values()]).toEqual([0, 0, 0]);
  });
});

describe('shortages', () => {
  it('require each giver to hold its whole list before anything moves', () => {
    const request = trade([['sword', 2]], [['gold', 5]]);
    expect(
      findShortages(
        request,
        holdings([
          ['alice', 'sword', 2],
          ['bob', 'gold', 5],
        ]),
      ),
    ).toEqual([]);
    expect(
      findShortages(
        request,
        holdings([
          ['alice', 'sword', 1],
          ['bob', 'gold', 9],
        ]),
      ),
    ).toEqual([{ personaUid: 'alice', itemUid: 'sword', needed: 2, held: 1 }]);
  });

  it('do not count what a giver would receive in the same trade', () => {
    // Alice gives 5 gold and gets 3 back: she must hold 5, not 2.
    expect(
      findShortages(
        trade([['gold', 5]], [['gold', 3]]),
        holdings([
          ['alice', 'gold', 2],
          ['bob', 'gold', 3],
        ]),
      ),
    ).toHaveLength(1);
  });

  it('never apply to an award, and apply to a removal', () => {
    const award: TransactionRequest = { ...trade([['gem', 3]]), type: 'AWARD', personaTwoUid: null };
    expect(findShortages(award, new Map())).toEqual([]);
    expect(findShortages({ ...award, type: 'REMOVAL' }, new Map())).toEqual([{ personaUid: 'alice', itemUid: 'gem', needed: 3, held: 0 }]);
  });
});

describe('overflows', () => {
  const award = (items: Array<[string, number]>): TransactionRequest => ({ ...trade(items), type: 'AWARD', personaTwoUid: null });

  it('let a holding reach MAX_QUANTITY (the integer column) exactly, and no further', () => {
    expect(MAX_QUANTITY).toBe(2 ** 31 - 1);
    expect(findOverflows(award([['gold', 7]]), holdings([['alice', 'gold', MAX_QUANTITY - 7]]))).toEqual([]);
    expect(findOverflows(award([['gold', 8]]), holdings([['alice', 'gold', MAX_QUANTITY - 7]]))).toEqual([
      { personaUid: 'alice', itemUid: 'gold', field: 'personaOneInventoryItems.0.quantity', after: MAX_QUANTITY + 1 },
    ]);
  });

  it('name the entry that brings the item: in a trade, persona one receives what persona two lists', () => {
    const request = trade(
      [
        ['sword', 1],
        ['gem', 2],
      ],
      [['gold', 3]],
    );
    expect(
      findOverflows(
        request,
        holdings([
          ['alice', 'sword', 1],
          ['alice', 'gem', 2],
          ['alice', 'gold', MAX_QUANTITY],
          ['bob', 'gem', MAX_QUANTITY - 1],
          ['bob', 'gold', 3],
        ]),
      ),
    ).toEqual([
      { personaUid: 'bob', itemUid: 'gem', field: 'personaOneInventoryItems.1.quantity', after: MAX_QUANTITY + 1 },
      { personaUid: 'alice', itemUid: 'gold', field: 'personaTwoInventoryItems.0.quantity', after: MAX_QUANTITY + 3 },
    ]);
  });

  it('net what a persona receives against what it gives of the same item', () => {
    // Alice, full of gold, gives 5 and gets 3 back: she ends with less.
    expect(
      findOverflows(
        trade([['gold', 5]], [['gold', 3]]),
        holdings([
          ['alice', 'gold', MAX_QUANTITY],
          ['bob', 'gold', 3],
        ]),
      ),
    ).toEqual([]);
  });

  it('never come from a removal', () => {
    expect(findOverflows({ ...award([['gold', 1]]), type: 'REMOVAL' }, holdings([['alice', 'gold', MAX_QUANTITY]]))).toEqual([]);
  });
});

describe('holdings', () => {
  it('after a trade are the holdings before plus the movements', () => {
    const request = trade([['sword', 2]], [['gold', 5]]);
    const before = holdings([
      ['alice', 'sword', 2],
      ['bob', 'gold', 5],
    ]);
    const after = applyMovements(before, planMovements(request));
    expect(Object.fromEntries(after)).toEqual({
      'alice/sword': 0,
      'bob/sword': 2,
      'bob/gold': 0,
      'alice/gold': 5,
    });
    expect(before.get('alice/sword')).toBe(2); // the input is left alone
  });

  it('affected by a trade are every listed item, for both personas', () => {
    expect(affectedHoldings(trade([['sword', 1]], [['gold', 1]]))).toEqual([
      { personaUid: 'alice', itemUid: 'sword' },
      { personaUid: 'alice', itemUid: 'gold' },
      { personaUid: 'bob', itemUid: 'sword' },
      { personaUid: 'bob', itemUid: 'gold' },
    ]);
  });
});
