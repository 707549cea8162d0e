/**
 * The benchmark's data, written straight into the migrated database with SQL (the service is not
 * asked: seeding through it would be slow and would measure nothing): 1,000 catalog items with stats,
 * 200 players with one or two personas each, and their inventories, each given by an AWARD transaction
 * with its ledger rows, so that the ledger invariant holds from the start. Plus the fixtures of the
 * write scenarios: 100 disjoint gift pairs whose givers hold a large stock of gold coins, two traders
 * who both hold a large stock of two goods, and a persona whose skill progress is raced; and 200 users
 * of their own for the sign-in scenarios, and 5,000 guests, each signed in on a device of their own,
 * for the device sign-in scenario.
 *
 * Values come from a seeded generator, so every run seeds the same catalog (uids aside).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { rankKeySql } from '../src/leaderboards/rules/operators.js';

export const LARGE_STOCK = 1_000_000;

/** The sizes of a seed: the benchmark's tables use the defaults, the scale curve starts smaller. */
export interface SeedSize {
  items: number;
  /** Players; one in four has a second persona. */
  players: number;
  /** Disjoint giver/receiver pairs, taken from the players: at most half of them. */
  giftPairs: number;
  /**
   * Users of their own for the sign-in scenarios: each sign-in opens a session, and past the limit per
   * user the oldest is revoked, which would sign the players of the other scenarios out.
   */
  signers: number;
  /**
   * Guests (accounts created by a device) for the returning-device scenario: enough that their
   * sessions stay under the limit per user through its rounds (no eviction on every sign-in).
   */
  devices: number;
}

export const DEFAULT_SIZE: SeedSize = { items: 1000, players: 200, giftPairs: 100, signers: 200, devices: 5000 };

export interface SeededUser {
  uid: string;
  /** The subject at idp1 (`player-001`, ...). */
  subject: string;
  personaUids: string[];
  /** The player session its access token names (`sid`), signed in at idp1. */
  sessionUid: string;
}

export interface SeedData {
  admin: SeededUser;
  players: SeededUser[];
  itemUids: string[];
  goldCoinUid: string;
  giftPairs: Array<{ giver: SeededUser; giverPersonaUid: string; receiverPersonaUid: string }>;
  traders: [SeededUser, SeededUser];
  tradeGoods: [string, string];
  skillOwner: SeededUser;
  /** Users only the sign-in scenarios use (SeedSize.signers). */
  signers: SeededUser[];
  /** The device ids of the guests (SeedSize.devices). */
  deviceIds: string[];
}

/** mulberry32: a small, fast, seeded generator. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    integer: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)],
  };
}

const MATERIALS = ['Iron', 'Steel', 'Oak', 'Bone', 'Crystal', 'Obsidian', 'Silver', 'Elven', 'Dwarven', 'Runed'];
const KINDS = ['sword', 'axe', 'bow', 'staff', 'shield', 'helm', 'boots', 'amulet', 'ring', 'potion', 'dagger', 'cloak'];
const ELEMENTS = ['fire', 'ice', 'storm', 'poison', 'holy', 'shadow'];
const RARITIES = ['common', 'uncommon', 'rare', 'epic', 'legendary'];

/** Inserts rows given as objects through one `jsonb_to_recordset` statement per table. */
async function insertRows(
  database: pg.ClientBase | pg.Pool,
  table: string,
  columns: Record<string, string>,
  rows: object[],
): Promise<void> {
  const names = Object.keys(columns)
    .map((name) => `"${name}"`)
    .join(', ');
  const definition = Object.entries(columns)
    .map(([name, type]) => `"${name}" ${type}`)
    .join(', ');
  for (let start = 0; start < rows.length; start += 2000) {
    await database.query(`INSERT INTO ${table} (${names}) SELECT ${names} FROM jsonb_to_recordset($1::jsonb) AS row(${definition})`, [
      JSON.stringify(rows.slice(start, start + 2000)),
    ]);
  }
}

const user = (subject: string, personas: number): SeededUser => ({
  uid: randomUUID(),
  subject,
  personaUids: Array.from({ length: personas }, () => randomUUID()),
  sessionUid: randomUUID(),
});

/** Users signed in at idp1: the user, its identity, and the player session its token names. */
async function insertUsers(database: pg.Pool, users: SeededUser[]): Promise<void> {
  await insertRows(
    database,
    'users',
    { uid: 'uuid', provider: 'text', subject: 'text', name: 'text' },
    users.map(({ uid, subject }) => ({ uid, provider: 'idp1', subject, name: subject })),
  );
  const identities = users.map((owner) => ({ uid: randomUUID(), userUid: owner.uid, provider: 'idp1', subject: owner.subject }));
  await insertRows(database, 'user_identities', { uid: 'uuid', userUid: 'uuid', provider: 'text', subject: 'text' }, identities);
  await insertRows(
    database,
    'auth_sessions',
    { uid: 'uuid', userUid: 'uuid', provider: 'text', identityUid: 'uuid', expiresAt: 'timestamptz' },
    users.map((owner, index) => ({
      uid: owner.sessionUid,
      userUid: owner.uid,
      provider: 'idp1',
      identityUid: identities[index].uid,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    })),
  );
}

async function insertPersonas(database: pg.Pool, users: SeededUser[]): Promise<void> {
  await insertRows(
    database,
    'personas',
    { uid: 'uuid', userUid: 'uuid', name: 'text' },
    users.flatMap((owner) => owner.personaUids.map((uid, index) => ({ uid, userUid: owner.uid, name: `${owner.subject} ${index + 1}` }))),
  );
}

/** Players of the sockets measure (bench/sockets.ts), one persona each, beside the seeded ones. */
export async function seedSocketPlayers(database: pg.Pool, count: number): Promise<SeededUser[]> {
  const players = Array.from({ length: count }, (_, index) => user(`socket-player-${String(index + 1).padStart(5, '0')}`, 1));
  await insertUsers(database, players);
  await insertPersonas(database, players);
  return players;
}

/**
 * `deviceSubject`: what the service stores for a device id (its keyed hash, under the key the service
 * is given), for the guests.
 */
export async function seed(
  database: pg.Pool,
  size: SeedSize = DEFAULT_SIZE,
  deviceSubject?: (deviceId: string) => string,
): Promise<SeedData> {
  const { items: itemCount, players: playerCount, giftPairs: pairCount, signers: signerCount, devices: deviceCount } = size;
  const random = generator(20261122);
  const now = Date.now();

  // Items, created over the past month (distinct times, so that the default order means something).
  const items = Array.from({ length: itemCount }, (_, index) => {
    const kind = random.pick(KINDS);
    const stats: Array<{ name: string; value: string | number | boolean }> = [
      { name: 'damage', value: random.integer(1, 120) },
      { name: 'weight', value: Math.round(random.next() * 2000) / 100 },
      { name: 'rarity', value: random.pick(RARITIES) },
    ];
    for (let extra = random.integer(0, 3); extra > 0; extra--) {
      const stat = random.pick([
        { name: 'element', value: random.pick(ELEMENTS) },
        { name: 'twoHanded', value: random.next() < 0.5 },
        { name: 'durability', value: random.integer(10, 500) },
        { name: 'critChance', value: Math.round(random.next() * 100) / 100 },
      ]);
      if (!stats.some((existing) => existing.name === stat.name)) stats.push(stat);
    }
    const created = new Date(now - (itemCount - index) * 60_000 - random.integer(0, 59_999)).toISOString();
    return {
      uid: randomUUID(),
      name:
        index === 0
          ? 'Gold coin'
          : index === 1
            ? 'Silver ingot'
            : index === 2
              ? 'Copper ore'
              : `${random.pick(MATERIALS)} ${kind} #${index}`,
      description: `A ${random.pick(RARITIES)} ${kind}, found in the ${random.pick(['northern', 'eastern', 'sunken', 'burning', 'frozen'])} ${random.pick(['wastes', 'keep', 'mines', 'forest', 'citadel'])}.`,
      cost: random.integer(0, 5000) + (random.next() < 0.3 ? 0.5 : 0),
      stats,
      assetId: random.next() < 0.5 ? `item-${String(index).padStart(4, '0')}` : null,
      iconAssetId: random.next() < 0.3 ? randomUUID() : null,
      parentUID: null as string | null,
      dateCreated: created,
      dateModified: created,
      version: random.integer(0, 5),
    };
  });
  // One item in ten derives from an older one.
  for (const [index, item] of items.entries()) {
    if (index > 10 && random.next() < 0.1) item.parentUID = items[random.integer(3, index - 1)].uid;
  }

  const admin = user('bench-admin', 1);
  const players = Array.from({ length: playerCount }, (_, index) =>
    user(`player-${String(index + 1).padStart(3, '0')}`, index % 4 === 0 ? 2 : 1),
  );
  const traders: [SeededUser, SeededUser] = [user('trader-a', 1), user('trader-b', 1)];
  const skillOwner = user('skill-owner', 1);
  const signers = Array.from({ length: signerCount }, (_, index) => user(`signer-${String(index + 1).padStart(3, '0')}`, 0));
  const users = [admin, ...players, ...traders, skillOwner, ...signers];

  await insertUsers(database, users);

  // Guests, as a device's first sign-in leaves them: the user, the device's identity, a persona.
  if (deviceCount > 0 && !deviceSubject) throw new Error('seeding guests needs the keyed hash of their device ids');
  const deviceIds = Array.from({ length: deviceCount }, () => randomUUID());
  const guests = deviceIds.map((deviceId) => ({ uid: randomUUID(), subject: deviceSubject!(deviceId) }));
  await insertRows(
    database,
    'users',
    { uid: 'uuid', provider: 'text' },
    guests.map(({ uid }) => ({ uid, provider: 'device' })),
  );
  await insertRows(
    database,
    'user_identities',
    { userUid: 'uuid', provider: 'text', subject: 'text' },
    guests.map(({ uid, subject }) => ({ userUid: uid, provider: 'device', subject })),
  );
  await insertRows(
    database,
    'personas',
    { userUid: 'uuid', name: 'text' },
    guests.map(({ uid }) => ({ userUid: uid, name: 'Guest' })),
  );
  await insertPersonas(database, users);
  await insertRows(
    database,
    'items',
    {
      uid: 'uuid',
      name: 'text',
      description: 'text',
      cost: 'double precision',
      stats: 'jsonb',
      assetId: 'text',
      iconAssetId: 'uuid',
      parentUID: 'uuid',
      ownerUid: 'uuid',
      dateCreated: 'timestamptz',
      dateModified: 'timestamptz',
      version: 'integer',
    },
    items.map((item) => ({ ...item, ownerUid: admin.uid })),
  );

  // Inventories: every persona is awarded 5 to 15 items; the fixtures get their large stocks.
  const [goldCoinUid, silverUid, copperUid] = items.map((item) => item.uid);
  const awards = new Map<string, Map<string, number>>();
  const award = (personaUid: string, itemUid: string, quantity: number) => {
    const held = awards.get(personaUid) ?? new Map<string, number>();
    held.set(itemUid, (held.get(itemUid) ?? 0) + quantity);
    awards.set(personaUid, held);
  };
  for (const player of players) {
    for (const personaUid of player.personaUids) {
      for (let count = random.integer(5, 15); count > 0; count--) award(personaUid, random.pick(items).uid, random.integer(1, 50));
    }
  }
  const giftPairs = Array.from({ length: pairCount }, (_, index) => ({
    giver: players[index],
    giverPersonaUid: players[index].personaUids[0],
    receiverPersonaUid: players[index + pairCount].personaUids[0],
  }));
  for (const pair of giftPairs) award(pair.giverPersonaUid, goldCoinUid, LARGE_STOCK);
  for (const trader of traders) {
    award(trader.personaUids[0], silverUid, LARGE_STOCK);
    award(trader.personaUids[0], copperUid, LARGE_STOCK);
  }

  const transactions: object[] = [];
  const holdings: object[] = [];
  const ledger: object[] = [];
  for (const [personaUid, held] of awards) {
    const transactionUid = randomUUID();
    const list = [...held].map(([itemUid, quantity]) => ({ itemUid, quantity }));
    transactions.push({
      uid: transactionUid,
      type: 'AWARD',
      status: 'COMPLETED',
      personaOneUid: personaUid,
      personaOneInventoryItems: list,
      personaOneInventoryItemsAfter: list.map((entry) => ({ personaUid, ...entry })),
      createdByUid: admin.uid,
    });
    for (const { itemUid, quantity } of list) {
      holdings.push({ personaUid, itemUid, quantity });
      ledger.push({ transactionUid, personaUid, itemUid, delta: quantity });
    }
  }
  await insertRows(
    database,
    'transactions',
    {
      uid: 'uuid',
      type: 'text',
      status: 'text',
      personaOneUid: 'uuid',
      personaOneInventoryItems: 'jsonb',
      personaOneInventoryItemsAfter: 'jsonb',
      createdByUid: 'uuid',
    },
    transactions,
  );
  await insertRows(database, 'inventory_items', { personaUid: 'uuid', itemUid: 'uuid', quantity: 'integer' }, holdings);
  await insertRows(database, 'inventory_ledger', { transactionUid: 'uuid', personaUid: 'uuid', itemUid: 'uuid', delta: 'integer' }, ledger);
  await database.query('ANALYZE');

  return {
    admin,
    players,
    itemUids: items.map((item) => item.uid),
    goldCoinUid,
    giftPairs,
    traders,
    tradeGoods: [silverUid, copperUid],
    skillOwner,
    signers,
    deviceIds,
  };
}

/**
 * The economy's invariants, checked with SQL after the write scenarios: per item, the quantities held
 * equal the AWARD and REMOVAL deltas of the ledger (trades only move); per holding, the quantity equals
 * the sum of its ledger rows; and no quantity is negative.
 */
export async function checkLedger(
  database: pg.Pool,
): Promise<{ itemMismatches: number; holdingMismatches: number; negativeQuantities: number }> {
  const [{ count: itemMismatches }] = (
    await database.query<{ count: number }>(`
      WITH held AS (SELECT "itemUid", sum(quantity) AS quantity FROM inventory_items GROUP BY "itemUid"),
           minted AS (
             SELECT ledger."itemUid", sum(ledger.delta) AS quantity
             FROM inventory_ledger ledger JOIN transactions ON transactions.uid = ledger."transactionUid"
             WHERE transactions.type IN ('AWARD', 'REMOVAL')
             GROUP BY ledger."itemUid")
      SELECT count(*)::int AS count FROM held FULL JOIN minted USING ("itemUid")
      WHERE coalesce(held.quantity, 0) <> coalesce(minted.quantity, 0)`)
  ).rows;
  const [{ count: holdingMismatches }] = (
    await database.query<{ count: number }>(`
      WITH moved AS (SELECT "personaUid", "itemUid", sum(delta) AS quantity FROM inventory_ledger GROUP BY "personaUid", "itemUid")
      SELECT count(*)::int AS count FROM inventory_items held FULL JOIN moved USING ("personaUid", "itemUid")
      WHERE coalesce(held.quantity, 0) <> coalesce(moved.quantity, 0)`)
  ).rows;
  const [{ count: negativeQuantities }] = (
    await database.query<{ count: number }>('SELECT count(*)::int AS count FROM inventory_items WHERE quantity < 0')
  ).rows;
  return { itemMismatches, holdingMismatches, negativeQuantities };
}

/** The boards of the leaderboard scenarios: one BEST and one INCREMENT, each with the same ranked personas. */
export interface LeaderboardSeed {
  best: string;
  increment: string;
  /** Records on each board: the crowd's and the seeded players'. */
  records: number;
  /** 1,000 personas ranked on both boards, picked at random. */
  sample: string[];
}

/**
 * Two boards of `crowd` made-up players' records plus one record of each seeded player (whose tokens
 * the scenarios hold), with random scores and rank keys computed by the service's own SQL. Written in
 * SQL, so nothing goes through the rank-change log: the service must start after it (and rebuilds).
 */
export async function seedLeaderboards(database: pg.Pool, data: SeedData, crowd: number): Promise<LeaderboardSeed> {
  await database.query(`
    INSERT INTO users (uid, provider, subject, name)
    SELECT gen_random_uuid(), 'idp1', 'crowd-' || n, 'crowd-' || n FROM generate_series(1, ${crowd}) n`);
  await database.query(`
    INSERT INTO personas (uid, "userUid", name) SELECT gen_random_uuid(), uid, name FROM users WHERE subject LIKE 'crowd-%'`);
  const boards: string[] = [];
  for (const operator of ['BEST', 'INCREMENT']) {
    const { rows } = await database.query<{ board: string; period: string }>(
      `WITH board AS (
         INSERT INTO leaderboards (name, "sortOrder", operator, "subscoreSortOrder", "subscoreOperator", "ownerUid")
         VALUES ($1, 'DESC', $2, 'DESC', $2, $3) RETURNING uid, "dateCreated"
       )
       INSERT INTO leaderboard_periods ("leaderboardUid", "startsAt") SELECT uid, "dateCreated" FROM board
       RETURNING "leaderboardUid" AS board, uid AS period`,
      [`Bench ${operator}`, operator, data.admin.uid],
    );
    const [{ board, period }] = rows;
    const key = rankKeySql({ score: 's.score', subscore: '0', reached: 's.reached', persona: 's.persona', desc: 'true', subDesc: 'true' });
    await database.query(
      `INSERT INTO leaderboard_records ("leaderboardUid", "periodUid", "personaUid", "userUid", score, subscore, "numScore", reached, "rankKey")
       SELECT $1, $2, s.persona, s.owner, s.score, 0, 1, s.reached, ${key}
       FROM (SELECT p.uid AS persona, p."userUid" AS owner, (random() * 1e9)::bigint AS score, nextval('leaderboard_reached_seq') AS reached
             FROM personas p JOIN users u ON u.uid = p."userUid" WHERE u.subject LIKE 'crowd-%' OR u.uid = ANY($3::uuid[])) s
       ON CONFLICT ("periodUid", "personaUid") DO NOTHING`,
      [board, period, data.players.map((player) => player.uid)],
    );
    await database.query(
      `UPDATE leaderboard_periods SET size = (SELECT count(*) FROM leaderboard_records WHERE "periodUid" = $1) WHERE uid = $1`,
      [period],
    );
    boards.push(board);
  }
  // The visibility map too: the baseline's rank is a count that can then be answered from the index alone.
  await database.query('VACUUM ANALYZE leaderboard_records');
  await database.query('ANALYZE');
  const { rows } = await database.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM leaderboard_records WHERE "leaderboardUid" = $1`,
    [boards[0]],
  );
  const sample = await database.query<{ uid: string }>(
    `SELECT "personaUid" AS uid FROM leaderboard_records TABLESAMPLE SYSTEM (1) WHERE "leaderboardUid" = $1 LIMIT 1000`,
    [boards[0]],
  );
  return { best: boards[0], increment: boards[1], records: rows[0].count, sample: sample.rows.map((row) => row.uid) };
}
