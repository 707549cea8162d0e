import type pg from 'pg';

/**
 * The economy's invariants, checked directly in the database after a fault scenario. Each returns the
 * list of violations (empty when all is well), so that a failure shows what broke.
 */
export async function economyViolations(db: pg.Pool): Promise<string[]> {
  const violations: string[] = [];
  const negative = await db.query('SELECT "personaUid", "itemUid", quantity FROM inventory_items WHERE quantity < 0');
  for (const row of negative.rows) violations.push(`negative quantity ${JSON.stringify(row)}`);

  // Per item: all quantities = AWARD and REMOVAL deltas; TRADE deltas net to zero.
  const perItem = await db.query(`
    SELECT i.uid AS item,
           COALESCE((SELECT sum(quantity) FROM inventory_items WHERE "itemUid" = i.uid), 0)::bigint AS held,
           COALESCE((SELECT sum(l.delta) FROM inventory_ledger l JOIN transactions t ON t.uid = l."transactionUid"
                     WHERE l."itemUid" = i.uid AND t.type IN ('AWARD', 'REMOVAL')), 0)::bigint AS minted,
           COALESCE((SELECT sum(l.delta) FROM inventory_ledger l JOIN transactions t ON t.uid = l."transactionUid"
                     WHERE l."itemUid" = i.uid AND t.type = 'TRADE'), 0)::bigint AS traded
    FROM items i`);
  for (const row of perItem.rows) {
    if (row.held !== row.minted) violations.push(`item ${row.item}: held ${row.held} but awarded - removed ${row.minted}`);
    if (row.traded !== '0') violations.push(`item ${row.item}: trade deltas sum to ${row.traded}, not 0`);
  }

  // Per persona and item: the inventory is the sum of its ledger (nothing moved outside a transaction).
  const drift = await db.query(`
    SELECT coalesce(h."personaUid", l."personaUid") AS persona, coalesce(h."itemUid", l."itemUid") AS item,
           coalesce(h.quantity, 0) AS held, coalesce(l.total, 0) AS ledger
    FROM inventory_items h
    FULL JOIN (SELECT "personaUid", "itemUid", sum(delta)::int AS total FROM inventory_ledger GROUP BY 1, 2) l
      ON l."personaUid" = h."personaUid" AND l."itemUid" = h."itemUid"
    WHERE coalesce(h.quantity, 0) <> coalesce(l.total, 0)`);
  for (const row of drift.rows) violations.push(`persona ${row.persona} item ${row.item}: holds ${row.held}, ledger says ${row.ledger}`);

  // No half-applied transaction: COMPLETED ones have ledger rows matching their snapshots; others none.
  const transactions = await db.query(`
    SELECT t.uid, t.status,
           t."personaOneInventoryItemsBefore" || t."personaTwoInventoryItemsBefore" AS before,
           t."personaOneInventoryItemsAfter" || t."personaTwoInventoryItemsAfter" AS after,
           COALESCE(json_agg(json_build_object('personaUid', l."personaUid", 'itemUid', l."itemUid", 'delta', l.delta))
             FILTER (WHERE l.sequence IS NOT NULL), '[]') AS ledger
    FROM transactions t LEFT JOIN inventory_ledger l ON l."transactionUid" = t.uid
    GROUP BY t.uid`);
  for (const row of transactions.rows) {
    const ledger = row.ledger as Array<{ personaUid: string; itemUid: string; delta: number }>;
    if (row.status !== 'COMPLETED') {
      if (ledger.length > 0) violations.push(`transaction ${row.uid} is ${row.status} but moved quantities`);
      continue;
    }
    const quantity = (entries: Array<{ personaUid: string; itemUid: string; quantity: number }>, personaUid: string, itemUid: string) =>
      entries.find((entry) => entry.personaUid === personaUid && entry.itemUid === itemUid)?.quantity ?? 0;
    for (const entry of row.after as Array<{ personaUid: string; itemUid: string; quantity: number }>) {
      const delta = ledger
        .filter((move) => move.personaUid === entry.personaUid && move.itemUid === entry.itemUid)
        .reduce((sum, move) => sum + move.delta, 0);
      if (entry.quantity - quantity(row.before, entry.personaUid, entry.itemUid) !== delta) {
        violations.push(`transaction ${row.uid}: snapshots and ledger disagree for ${entry.personaUid}/${entry.itemUid}`);
      }
    }
  }
  return violations;
}

/**
 * Sessions never hold more users than seats, nor a user twice; no user sits in two matched sessions.
 * `seatedIn` limits the stray-ticket check to those sessions: a member may leave (or be swept out of) a
 * session after the matchmaker seated them, so that check only holds for sessions nobody has left yet.
 */
export async function sessionViolations(db: pg.Pool, seatedIn?: string[]): Promise<string[]> {
  const violations: string[] = [];
  const overfilled = await db.query(
    `SELECT uid, cardinality(users) AS members, "numTeams" * "teamSize" AS seats FROM sessions
     WHERE cardinality(users) > "numTeams" * "teamSize"
        OR cardinality(users) <> (SELECT count(DISTINCT u) FROM unnest(users) u)`,
  );
  for (const row of overfilled.rows) violations.push(`session ${row.uid}: ${row.members} members for ${row.seats} seats`);
  const doubleMatched = await db.query(`
    SELECT u AS "user", count(DISTINCT t."sessionUid") AS sessions
    FROM tickets t, unnest(t.users) u WHERE t.status = 'MATCH_FOUND' GROUP BY u HAVING count(DISTINCT t."sessionUid") > 1`);
  for (const row of doubleMatched.rows) violations.push(`user ${row.user} matched into ${row.sessions} sessions`);
  const strays = await db.query(
    `SELECT t.uid FROM tickets t JOIN sessions s ON s.uid = t."sessionUid"
     WHERE NOT (s.users @> t.users) AND ($1::uuid[] IS NULL OR s.uid = ANY($1::uuid[]))`,
    [seatedIn ?? null],
  );
  for (const row of strays.rows) violations.push(`ticket ${row.uid}: its users are not all in its session`);
  return violations;
}
