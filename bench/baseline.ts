/**
 * The benchmark's baseline: what Node.js and PostgreSQL can do on this machine for the item reads and
 * the economy's writes, with nothing of Nest or TypeORM in between. A bare Fastify server (the same
 * Fastify the service runs on) and a `pg` pool of the same size (10) serve
 *
 *   GET /items/:id   GET /items?limit=&skip=   GET /items/count   POST /inventories/transaction
 *   GET /storage/:collection/:key   PUT /storage
 *
 * with the same JWT check as the service's JwtGuard (HS256 signature, issuer, audience, expiry, and the
 * `sub`/`roles` claims), the same JSON (same fields in the same order, numbers as numbers, dates as ISO
 * strings with milliseconds) and the same headers (ETag, X-Request-Id, the security headers of a JSON answer). Only the default order and no
 * filters: that is all the benchmark asks of it. bench/run.ts checks that both answer byte for byte the
 * same before it measures anything.
 *
 * The transaction endpoint takes what is processed at once (gifts, awards, removals; not a trade that
 * waits for persona two's owner) and keeps every guarantee of the service's economy with the fewest
 * round trips it can: the personas locked in uid order, every quantity checked before anything moves,
 * each movement with its ledger row, snapshots before and after, and the events written in the same
 * transaction (inventory.updated per persona, transaction.updated to the owners) with their NOTIFY.
 * Its statements, but the list's, are named, prepared once per connection, as the service's are by default.
 *
 * `PUT /storage` writes a batch of the caller's objects with the guarantees of the service's cloud save
 * (all or nothing, versions, protected objects, quotas under concurrent batches, an event per object),
 * in five round trips; the benchmark sends only players' own objects without permissions.
 *
 * `POST /auth/device` signs a guest in as the service does, with the same rows: a device never seen
 * before gets a user, its identity (the id's keyed hash, under the same key) and a persona; every
 * sign-in opens a player session with its refresh token (stored hashed), revokes the user's sessions
 * past the 50 newest (announced with NOTIFY) and writes its audit row; a banned user is refused. All of
 * it in one statement, the fewest round trips there are; the answer is an HS256 token pair.
 * `GET /auth/idp1` does the same for a provider token, verified as the service verifies it (jsonwebtoken
 * with a KeyObject made once per key of the provider's JWKS, fetched again for an unknown kid):
 * signature, algorithm, issuer, expiry.
 *
 * Run by bench/run.ts as a process of its own: PORT, DATABASE_URL, JWT_SECRET, JWT_ISSUER, JWT_AUDIENCE,
 * DEVICE_ID_KEY, IDP1_JWKS_URL and IDP1_ISSUER, and MEDIA_STATIC_DIR, the folder `GET /media/*` serves with @fastify/static, and
 * MEDIA_UPLOAD_DIR, where `PUT /assets/media/:id/files/:variant` streams an upload.
 */
import { createHash, createHmac, createPublicKey, type KeyObject, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import jsonwebtoken from 'jsonwebtoken';
import pg from 'pg';
// The service's own constant: the same security headers on the wire (bench/run.ts compares every header).
import { rankKeySql } from '../src/leaderboards/rules/operators.js';
import { API_HEADERS } from '../src/security/http-security.js';
// The service's keyed hash of device ids, so that both find the same guests.
import { DeviceIds } from '../src/auth/users/device-ids.js';

const environment = {
  port: Number(process.env.PORT ?? 3100),
  databaseUrl: required('DATABASE_URL'),
  secret: required('JWT_SECRET'),
  issuer: process.env.JWT_ISSUER ?? 'game-backend',
  audience: process.env.JWT_AUDIENCE ?? 'game-backend',
  deviceIdKey: required('DEVICE_ID_KEY'),
  idp1JwksUrl: process.env.IDP1_JWKS_URL,
  idp1Issuer: process.env.IDP1_ISSUER,
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

// The service's columns in the order its Item entity serialises them (ownerUid is never returned).
const ITEM_COLUMNS = `uid, "dateCreated", "dateModified", version, name, description, cost, stats, "assetId", "iconAssetId", "parentUID"`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AUTHORIZATION = /^\s*(?:jwt|bearer)\s+([A-Za-z0-9\-_.~+/=]{1,8192})\s*$/i;

// A statement past 5 s ends there: the baseline's rank-by-count on a million records otherwise runs on in
// PostgreSQL after its round ends, and the service's next round pays for it.
const pool = new pg.Pool({
  connectionString: environment.databaseUrl,
  max: 10,
  application_name: 'bench-baseline',
  statement_timeout: 5000,
});

interface Claims {
  sub: string;
  roles: string[];
}

/** HS256 verification with node:crypto, checking what jsonwebtoken checks for the service. */
function verify(token: string): Claims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts;
  const expected = createHmac('sha256', environment.secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    if ((JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: unknown }).alg !== 'HS256') return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    if (claims.iss !== environment.issuer) return undefined;
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(environment.audience)) return undefined;
    if (typeof claims.exp !== 'number' || claims.exp <= now) return undefined;
    if (typeof claims.nbf === 'number' && claims.nbf > now) return undefined;
    if (typeof claims.sub !== 'string' || !Array.isArray(claims.roles)) return undefined;
    return { sub: claims.sub, roles: claims.roles as string[] };
  } catch {
    return undefined;
  }
}

function fail(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.status(status).send({ status, code, message, requestId: reply.request.id });
}

const app = Fastify({
  genReqId: () => randomUUID(),
  logger: false,
});

/** The verified claims of each request, for the handlers that need the caller. */
const callers = new WeakMap<object, Claims>();

app.addHook('onRequest', async (request, reply) => {
  void reply.headers(API_HEADERS);
  void reply.header('X-Request-Id', request.id);
  // Media files are public, as the service serves them by default.
  if (request.url === '/health' || request.url.startsWith('/auth/') || request.url.startsWith('/media/')) return;
  const match = AUTHORIZATION.exec(request.headers.authorization ?? '');
  const claims = match ? verify(match[1]) : undefined;
  if (!claims) return fail(reply, 401, 'UNAUTHORIZED', 'the token is invalid or has expired: sign in again');
  callers.set(request, claims);
});

app.get('/health', () => ({ status: 'ok' }));

app.get('/items/count', async () => {
  const { rows } = await pool.query<{ count: number }>({ name: 'count', text: 'SELECT count(*)::int AS count FROM items' });
  return { count: rows[0].count };
});

app.get<{ Querystring: { limit?: string; skip?: string } }>('/items', async (request, reply) => {
  const limit = request.query.limit === undefined ? 100 : Number(request.query.limit);
  const skip = request.query.skip === undefined ? 0 : Number(request.query.skip);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(skip) || skip < 0) {
    return fail(reply, 400, 'VALIDATION_FAILED', 'limit must be 1..1000 and skip 0 or more');
  }
  const { rows } = await pool.query(`SELECT ${ITEM_COLUMNS} FROM items ORDER BY "dateCreated" ASC, uid ASC LIMIT $1 OFFSET $2`, [
    limit,
    skip,
  ]);
  return rows;
});

app.get<{ Params: { id: string } }>('/items/:id', async (request, reply) => {
  const { id } = request.params;
  if (!UUID.test(id)) return fail(reply, 400, 'VALIDATION_FAILED', 'id must be a UUID');
  const { rows } = await pool.query<{ version: number }>({
    name: 'byid',
    text: `SELECT ${ITEM_COLUMNS} FROM items WHERE uid = $1`,
    values: [id],
  });
  if (rows.length === 0) return fail(reply, 404, 'NOT_FOUND', `item ${id} not found`);
  void reply.header('ETag', `"${rows[0].version}"`);
  return rows[0];
});

// The columns of a storage object in the order the service's StorageObject serialises them (the value as text: see below).
const STORAGE_COLUMNS = `"ownerUid", collection, key, value::text AS value, version, "permissionRead", "permissionWrite", "dateCreated", "dateModified"`;
const STORAGE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The caller's object, or anyone's the caller may read (admins all, PUBLIC everyone), with its version as ETag. */
app.get<{ Params: { collection: string; key: string } }>('/storage/:collection/:key', async (request, reply) => {
  const claims = callers.get(request)!;
  const { collection, key } = request.params;
  if (!STORAGE_NAME.test(collection) || !STORAGE_NAME.test(key)) return fail(reply, 400, 'VALIDATION_FAILED', 'malformed name');
  const { rows } = await pool.query<{ version: string; value: string }>({
    name: 'storage',
    text: `SELECT ${STORAGE_COLUMNS} FROM storage_objects
           WHERE "ownerUid" = $1 AND collection = $2 AND key = $3 AND ($4 OR "permissionRead" <> 'NONE')`,
    values: [claims.sub, collection, key, claims.roles.includes('admin')],
  });
  if (rows.length === 0) return fail(reply, 404, 'NOT_FOUND', `storage object ${collection}/${key} not found`);
  void reply.header('ETag', `"${rows[0].version}"`);
  // The value as jsonb's text, as the service answers it (src/common/stored-json.ts): in the marker's
  // place, which no owner, collection or key (STORAGE_NAME) can hold.
  const marker = '<stored value>';
  const body = JSON.stringify({ ...rows[0], value: marker }).replace(JSON.stringify(marker), () => rows[0].value);
  return reply.type('application/json; charset=utf-8').send(body);
});

interface StorageWriteBody {
  collection?: unknown;
  key?: unknown;
  value?: unknown;
  version?: unknown;
}

const STORAGE_VERSION = /^(\*|[0-9a-f]{32})$/;
const STORAGE_VALUE_MAX_BYTES = 65_536;
const STORAGE_QUOTA = { objects: 1000, bytes: 10 * 1024 * 1024 };

/**
 * Writes a batch of the caller's objects, all or nothing, with the service's guarantees: the owner's
 * usage row locked (created on first use) so that batches of one owner take turns and quotas hold,
 * versions checked on what the lock lets it see, protected objects refused, and the objects, the usage
 * and a `storage.updated` event per object with its NOTIFY written in one statement. Five round trips:
 * BEGIN, the lock, the state (a statement's snapshot predates the lock it waits for), the write, COMMIT.
 */
app.put<{ Body: { objects?: unknown } }>('/storage', async (request, reply) => {
  const claims = callers.get(request)!;
  const objects = request.body?.objects;
  if (!Array.isArray(objects) || objects.length < 1 || objects.length > 100)
    return fail(reply, 400, 'VALIDATION_FAILED', 'objects: 1 to 100 writes');
  const seen = new Set<string>();
  const writes: Array<{ collection: string; key: string; json: string; size: number; version?: string }> = [];
  for (const { collection, key, value, version } of objects as StorageWriteBody[]) {
    if (typeof collection !== 'string' || !STORAGE_NAME.test(collection) || typeof key !== 'string' || !STORAGE_NAME.test(key))
      return fail(reply, 400, 'VALIDATION_FAILED', 'malformed name');
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return fail(reply, 400, 'VALIDATION_FAILED', 'value: an object');
    if (version !== undefined && (typeof version !== 'string' || !STORAGE_VERSION.test(version)))
      return fail(reply, 400, 'VALIDATION_FAILED', 'malformed version');
    if (seen.has(`${collection}/${key}`)) return fail(reply, 400, 'VALIDATION_FAILED', 'an object named twice');
    seen.add(`${collection}/${key}`);
    const json = JSON.stringify(value);
    const size = Buffer.byteLength(json);
    if (size > STORAGE_VALUE_MAX_BYTES) return fail(reply, 413, 'PAYLOAD_TOO_LARGE', 'value too large');
    writes.push({ collection, key, json, size, version });
  }
  const owner = claims.sub;
  const collections = writes.map((write) => write.collection);
  const keys = writes.map((write) => write.key);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query({
      name: 'storage_lock',
      text: `INSERT INTO storage_usage ("ownerUid") VALUES ($1) ON CONFLICT ("ownerUid") DO UPDATE SET objects = storage_usage.objects WHERE false`,
      values: [owner],
    });
    const { rows } = await client.query<{
      objects: number;
      bytes: string;
      current: Array<{ collection: string; key: string; version: string; size: number; permissionWrite: string }>;
    }>({
      name: 'storage_state',
      text: `SELECT u.objects, u.bytes, (SELECT coalesce(json_agg(json_build_object('collection', o.collection, 'key', o.key, 'version', o.version,
                'size', o.size, 'permissionWrite', o."permissionWrite")), '[]')
               FROM unnest($2::text[], $3::text[]) AS r(collection, key)
               JOIN storage_objects o ON o."ownerUid" = $1 AND o.collection = r.collection AND o.key = r.key) AS current
             FROM storage_usage u WHERE u."ownerUid" = $1`,
      values: [owner, collections, keys],
    });
    const current = new Map(rows[0].current.map((object) => [`${object.collection}/${object.key}`, object]));
    let objectsDelta = 0;
    let bytesDelta = 0;
    for (const write of writes) {
      const stored = current.get(`${write.collection}/${write.key}`);
      if (stored?.permissionWrite === 'NONE' && !claims.roles.includes('admin')) {
        await client.query('ROLLBACK');
        return fail(reply, 403, 'FORBIDDEN', 'protected');
      }
      const holds = write.version === undefined || (write.version === '*' ? !stored : stored?.version === write.version);
      if (!holds) {
        await client.query('ROLLBACK');
        return fail(reply, 409, 'VERSION_CONFLICT', 'version conflict');
      }
      objectsDelta += stored ? 0 : 1;
      bytesDelta += write.size - (stored?.size ?? 0);
    }
    const over = (delta: number, now: number, quota: number) => delta > 0 && now + delta > quota;
    if (over(objectsDelta, rows[0].objects, STORAGE_QUOTA.objects) || over(bytesDelta, Number(rows[0].bytes), STORAGE_QUOTA.bytes)) {
      await client.query('ROLLBACK');
      return fail(reply, 409, 'QUOTA_EXCEEDED', 'quota');
    }
    const { rows: acks } = await client.query<{ collection: string; key: string; ownerUid: string; version: string }>({
      name: 'storage_write',
      text: STORAGE_WRITE,
      values: [owner, collections, keys, writes.map((write) => write.json), writes.map((write) => write.size), objectsDelta, bytesDelta],
    });
    await client.query('COMMIT');
    return { acks: acks.map(({ collection, key, ownerUid, version }) => ({ collection, key, ownerUid, version })) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
});

/** The objects (their version a hash of the stored jsonb, as the service's), the usage, an event per object and its NOTIFY. */
const STORAGE_WRITE = `
  WITH w AS (
    SELECT *, value::jsonb AS parsed FROM unnest($2::text[], $3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS w(collection, key, value, size, n)
  ), usage AS (
    UPDATE storage_usage SET objects = objects + $6, bytes = bytes + $7 WHERE "ownerUid" = $1
  ), stored AS (
    INSERT INTO storage_objects ("ownerUid", collection, key, value, version, size)
    SELECT $1, collection, key, parsed, left(encode(sha256(convert_to(parsed::text, 'UTF8')), 'hex'), 32), size FROM w ORDER BY n
    ON CONFLICT ("ownerUid", collection, key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version, size = EXCLUDED.size,
      "dateModified" = now()
    RETURNING collection, key, "ownerUid", version
  ), acks AS (
    SELECT s.*, w.n FROM stored s JOIN w USING (collection, key)
  ), notified AS (
    INSERT INTO notifications ("userUid", type, data)
    SELECT "ownerUid", 'storage.updated', jsonb_build_object('collection', collection, 'key', key, 'ownerUid', "ownerUid", 'version', version)
    FROM acks ORDER BY n
    RETURNING "userUid"
  )
  SELECT collection, key, "ownerUid", version, (SELECT pg_notify('realtime', min("userUid"::text)) FROM notified) AS notified FROM acks ORDER BY n`;

interface Entry {
  itemUid: string;
  quantity: number;
}

interface TransactionBody {
  type?: 'TRADE' | 'AWARD' | 'REMOVAL';
  personaOneUid: string;
  personaTwoUid?: string;
  personaOneInventoryItems?: Entry[];
  personaTwoInventoryItems?: Entry[];
}

interface Holding {
  personaUid: string;
  itemUid: string;
  quantity: number;
}

const entriesValid = (entries: unknown): entries is Entry[] | undefined =>
  entries === undefined ||
  (Array.isArray(entries) &&
    entries.every(
      (entry: Entry) =>
        typeof entry?.itemUid === 'string' && UUID.test(entry.itemUid) && Number.isInteger(entry.quantity) && entry.quantity >= 1,
    ));

const SNAPSHOT = (row: string) =>
  `jsonb_build_object('uid', ${row}.uid, 'personaUid', ${row}."personaUid", 'itemUid', ${row}."itemUid", 'quantity', ${row}.quantity,
     'version', ${row}.version, 'dateCreated', to_char(${row}."dateCreated" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
     'dateModified', to_char(${row}."dateModified" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * The whole change after the checks, in one statement: the movements (upserts, decrements, rows that
 * reach 0 removed), their ledger rows, the transaction with its snapshots, and the events. Each data-
 * modifying part touches its own rows, and the foreign keys are checked at the statement's end.
 */
const APPLY = `
  WITH moves AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[]) AS m(persona, item, delta, kind)
  ), added AS (
    INSERT INTO inventory_items ("personaUid", "itemUid", quantity)
    SELECT persona, item, delta FROM moves WHERE kind = 'add'
    ON CONFLICT ("personaUid", "itemUid") DO UPDATE
      SET quantity = inventory_items.quantity + EXCLUDED.quantity, version = inventory_items.version + 1, "dateModified" = now()
    RETURNING *
  ), taken AS (
    UPDATE inventory_items i SET quantity = i.quantity + m.delta, version = i.version + 1, "dateModified" = now()
    FROM moves m WHERE m.kind = 'take' AND i."personaUid" = m.persona AND i."itemUid" = m.item
    RETURNING i.*
  ), emptied AS (
    DELETE FROM inventory_items i USING moves m WHERE m.kind = 'empty' AND i."personaUid" = m.persona AND i."itemUid" = m.item
    RETURNING i."personaUid", i."itemUid"
  ), after AS (
    SELECT "personaUid" AS persona, ${SNAPSHOT('a')} AS snapshot FROM added a
    UNION ALL SELECT "personaUid", ${SNAPSHOT('t')} FROM taken t
    UNION ALL SELECT "personaUid", jsonb_build_object('personaUid', "personaUid", 'itemUid', "itemUid", 'quantity', 0) FROM emptied
  ), recorded AS (
    INSERT INTO transactions (uid, type, status, "personaOneUid", "personaTwoUid", "personaOneInventoryItems", "personaTwoInventoryItems",
                              "personaOneInventoryItemsBefore", "personaTwoInventoryItemsBefore",
                              "personaOneInventoryItemsAfter", "personaTwoInventoryItemsAfter", "createdByUid", version)
    VALUES ($5, $6, 'COMPLETED', $7, $8, $9, $10, $11, $12,
            (SELECT coalesce(jsonb_agg(snapshot), '[]') FROM after WHERE persona = $7),
            (SELECT coalesce(jsonb_agg(snapshot), '[]') FROM after WHERE persona = $8), $13, 1)
    RETURNING *
  ), ledger AS (
    INSERT INTO inventory_ledger ("transactionUid", "personaUid", "itemUid", delta) SELECT $5, persona, item, delta FROM moves
  ), notified AS (
    INSERT INTO notifications ("userUid", type, data)
    SELECT o.owner, 'inventory.updated', jsonb_build_object('personaUid', o.persona, 'holdings', (SELECT jsonb_agg(snapshot) FROM after WHERE persona = o.persona))
    FROM unnest($14::uuid[], $15::uuid[]) AS o(persona, owner) WHERE EXISTS (SELECT 1 FROM moves WHERE persona = o.persona)
    UNION ALL
    SELECT DISTINCT o.owner, 'transaction.updated', to_jsonb(r) FROM unnest($15::uuid[]) AS o(owner), recorded r
    RETURNING "userUid"
  )
  SELECT to_jsonb(r) AS record, (SELECT pg_notify('realtime', string_agg(DISTINCT "userUid"::text, ',')) FROM notified) AS notified
  FROM recorded r`;

app.post<{ Body: TransactionBody }>('/inventories/transaction', async (request, reply) => {
  const claims = callers.get(request)!;
  const body = request.body;
  const type = body?.type ?? 'TRADE';
  const one = body?.personaOneInventoryItems ?? [];
  const two = body?.personaTwoInventoryItems ?? [];
  if (
    typeof body?.personaOneUid !== 'string' ||
    !UUID.test(body.personaOneUid) ||
    (body.personaTwoUid !== undefined && !UUID.test(body.personaTwoUid)) ||
    !entriesValid(body.personaOneInventoryItems) ||
    !entriesValid(body.personaTwoInventoryItems) ||
    (type === 'TRADE' ? !body.personaTwoUid || body.personaTwoUid === body.personaOneUid : body.personaTwoUid || two.length > 0) ||
    one.length + two.length === 0
  ) {
    return fail(reply, 400, 'VALIDATION_FAILED', 'not a transaction the baseline takes');
  }
  const admin = claims.roles.includes('admin');
  if (type !== 'TRADE' && !admin) return fail(reply, 403, 'FORBIDDEN', 'only admins award and remove');
  if (!admin && two.length > 0) return fail(reply, 400, 'VALIDATION_FAILED', 'the baseline takes no trade that waits for acceptance');
  const personaOne = body.personaOneUid.toLowerCase();
  const personaTwo = body.personaTwoUid?.toLowerCase() ?? null;
  const personas = [personaOne, ...(personaTwo ? [personaTwo] : [])];
  const movements: Array<Holding & { delta: number }> = [];
  const move = (personaUid: string, entries: Entry[], sign: number) =>
    entries.forEach(({ itemUid, quantity }) =>
      movements.push({ personaUid, itemUid: itemUid.toLowerCase(), quantity, delta: sign * quantity }),
    );
  if (type === 'AWARD') move(personaOne, one, 1);
  else if (type === 'REMOVAL') move(personaOne, one, -1);
  else {
    move(personaOne, one, -1);
    move(personaTwo!, one, 1);
    move(personaTwo!, two, -1);
    move(personaOne, two, 1);
  }
  const itemUids = [...new Set(movements.map((movement) => movement.itemUid))];

  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Locks the personas in uid order, and checks them and the items, in one round trip.
    const { rows: locked } = await client.query<{ uid: string; userUid: string; items: number }>({
      name: 'lock',
      text: `SELECT p.uid, p."userUid", (SELECT count(*)::int FROM items WHERE uid = ANY($2::uuid[])) AS items
       FROM personas p WHERE p.uid = ANY($1::uuid[]) ORDER BY p.uid FOR NO KEY UPDATE OF p`,
      values: [personas, itemUids],
    });
    const owners = new Map(locked.map((row) => [row.uid, row.userUid]));
    if (locked.length !== personas.length || locked[0]?.items !== itemUids.length) {
      await client.query('ROLLBACK');
      return fail(reply, 400, 'VALIDATION_FAILED', 'no such persona or item');
    }
    if (!admin && owners.get(personaOne) !== claims.sub) {
      await client.query('ROLLBACK');
      return fail(reply, 403, 'FORBIDDEN', 'persona one is not yours');
    }
    const { rows: held } = await client.query<Holding & Record<string, unknown>>({
      name: 'held',
      text: `SELECT uid, "personaUid", "itemUid", quantity, version, "dateCreated", "dateModified" FROM inventory_items
       WHERE "personaUid" = ANY($1::uuid[]) AND "itemUid" = ANY($2::uuid[])`,
      values: [personas, itemUids],
    });
    const before = new Map(held.map((row) => [`${row.personaUid}/${row.itemUid}`, row]));
    const quantityOf = (personaUid: string, itemUid: string) => before.get(`${personaUid}/${itemUid}`)?.quantity ?? 0;
    const net = new Map<string, Holding & { delta: number }>();
    for (const movement of movements) {
      const key = `${movement.personaUid}/${movement.itemUid}`;
      const sum = net.get(key);
      net.set(key, sum ? { ...sum, delta: sum.delta + movement.delta } : { ...movement });
    }
    const short = [...net.values()].filter((holding) => quantityOf(holding.personaUid, holding.itemUid) + holding.delta < 0);
    if (short.length > 0) {
      await client.query('ROLLBACK');
      return fail(reply, 409, 'INSUFFICIENT_QUANTITY', 'a quantity is short');
    }
    const moves = [...net.values()].filter((holding) => holding.delta !== 0);
    const kind = ({ personaUid, itemUid, delta }: Holding & { delta: number }) =>
      delta > 0 ? 'add' : quantityOf(personaUid, itemUid) + delta === 0 ? 'empty' : 'take';
    const snapshotsBefore = (personaUid: string | null) =>
      JSON.stringify(
        moves
          .filter((holding) => holding.personaUid === personaUid)
          .map(({ itemUid }) => before.get(`${personaUid}/${itemUid}`) ?? { personaUid, itemUid, quantity: 0 }),
      );
    const { rows } = await client.query<{ record: Record<string, unknown> }>({
      name: 'apply',
      text: APPLY,
      values: [
        moves.map((holding) => holding.personaUid),
        moves.map((holding) => holding.itemUid),
        moves.map((holding) => holding.delta),
        moves.map(kind),
        randomUUID(),
        type,
        personaOne,
        personaTwo,
        JSON.stringify(one),
        JSON.stringify(two),
        snapshotsBefore(personaOne),
        snapshotsBefore(personaTwo),
        claims.sub,
        personas,
        personas.map((uid) => owners.get(uid)),
      ],
    });
    await client.query('COMMIT');
    return rows[0].record;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
});

const deviceIds = DeviceIds.fromSecrets(environment.deviceIdKey, environment.secret);
const DEVICE_ID = /^[\x20-\x7E]{16,128}$/;
const SESSION_TTL_SECONDS = 2_592_000;
const ACCESS_TTL_SECONDS = 3600;

/**
 * The whole sign-in in one statement, for a device or idp1 ($8): the account found (share-locked against
 * a ban) or registered ($3: may it be; $9 its subject, $10 its name, $11 its persona's name), the session
 * with its refresh token, the eviction past 50 sessions and its NOTIFY, the audit row. No row: a
 * concurrent first sign-in registered the identity (retry) or, with $3 false, no account has it.
 */
const SIGN_IN = `
  WITH found AS (
    SELECT i.uid AS identity, i."userUid" AS "user", (u."bannedAt" IS NOT NULL AND (u."bannedUntil" IS NULL OR u."bannedUntil" > now())) AS banned
    FROM user_identities i JOIN users u ON u.uid = i."userUid" WHERE i.provider = $8 AND i.subject = $1 FOR SHARE OF u
  ), claimed AS (
    INSERT INTO user_identities ("userUid", provider, subject) SELECT $2, $8, $1 WHERE $3 AND NOT EXISTS (SELECT 1 FROM found)
    ON CONFLICT (provider, subject) DO NOTHING RETURNING uid AS identity, "userUid" AS "user"
  ), registered AS (
    INSERT INTO users (uid, provider, subject, name) SELECT "user", $8, $9, $10 FROM claimed RETURNING uid
  ), persona AS (
    INSERT INTO personas ("userUid", name) SELECT uid, $11 FROM registered
  ), account AS (
    SELECT identity, "user", banned, false AS created FROM found UNION ALL SELECT identity, "user", false, true FROM claimed
  ), s AS (
    INSERT INTO auth_sessions ("userUid", provider, "identityUid", address, "userAgent", "expiresAt")
    SELECT "user", $8, identity, $4, $5, now() + make_interval(secs => $6) FROM account WHERE NOT banned RETURNING uid, "userUid"
  ), t AS (
    INSERT INTO auth_refresh_tokens (hash, "sessionUid") SELECT $7, uid FROM s
  ), evicted AS (
    UPDATE auth_sessions SET "revokedAt" = now(), "revokedReason" = 'session-limit'
    WHERE uid IN (
      SELECT x.uid FROM auth_sessions x JOIN s ON x."userUid" = s."userUid"
      WHERE x."revokedAt" IS NULL AND x."expiresAt" > now() ORDER BY x."dateCreated" DESC, x.uid DESC OFFSET 49
    )
    RETURNING uid, "userUid"
  ), audit AS (
    INSERT INTO auth_audit ("userUid", event, outcome, "sessionUid", address, "userAgent", detail)
    SELECT s."userUid", 'sign-in', 'success', s.uid, $4, $5,
           jsonb_build_object('provider', $8::text) || CASE WHEN a.created THEN '{"created":true}'::jsonb ELSE '{}'::jsonb END
    FROM s CROSS JOIN account a
  )
  SELECT a."user", a.banned, s.uid AS session,
    (SELECT pg_notify('revocations', json_build_object('userUid', min(e."userUid"::text), 'sessionUids', json_agg(e.uid), 'reason', 'session-limit')::text)
     FROM evicted e HAVING count(*) > 0) AS notified
  FROM account a LEFT JOIN s ON true`;

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const TOKEN_HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** Our access token, as jsonwebtoken signs it for the service. */
function sign(sub: string, sid: string): string {
  const iat = Math.floor(Date.now() / 1000);
  const payload = base64url(
    JSON.stringify({ sub, roles: ['user'], sid, iat, exp: iat + ACCESS_TTL_SECONDS, aud: environment.audience, iss: environment.issuer }),
  );
  const signature = createHmac('sha256', environment.secret).update(`${TOKEN_HEADER}.${payload}`).digest('base64url');
  return `${TOKEN_HEADER}.${payload}.${signature}`;
}

interface SignIn {
  provider: 'device' | 'idp1';
  subject: string;
  create: boolean;
  name: string | null;
  personaName: string;
}

/** Our token pair for the identity, the 403 of a banned user, or undefined where no account has it. */
async function signIn(request: FastifyRequest, reply: FastifyReply, who: SignIn) {
  const refreshToken = randomBytes(32).toString('base64url');
  const userAgent = request.headers['user-agent'];
  const values = [
    who.subject,
    randomUUID(),
    who.create,
    request.ip,
    typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
    SESSION_TTL_SECONDS,
    createHash('sha256').update(refreshToken).digest('base64url'),
    who.provider,
    who.provider === 'device' ? null : who.subject,
    who.name,
    who.personaName,
  ];
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rows } = await pool.query<{ user: string; banned: boolean; session: string | null }>({
      name: 'sign_in',
      text: SIGN_IN,
      values,
    });
    const [row] = rows;
    if (!row && !who.create) break;
    if (!row) continue;
    if (row.banned) return fail(reply, 403, 'BANNED', 'banned');
    return { token: sign(row.user, row.session!), refreshToken, expiresIn: ACCESS_TTL_SECONDS };
  }
  return undefined;
}

app.post<{ Body: { deviceId?: unknown; create?: unknown } }>('/auth/device', async (request, reply) => {
  const body = request.body;
  const { deviceId, create = true } = body ?? {};
  if (
    typeof deviceId !== 'string' ||
    !DEVICE_ID.test(deviceId) ||
    typeof create !== 'boolean' ||
    Object.keys(body).some((key) => key !== 'deviceId' && key !== 'create')
  ) {
    return fail(reply, 400, 'VALIDATION_FAILED', 'deviceId must be 16 to 128 printable characters, create a boolean');
  }
  const who = { provider: 'device', subject: deviceIds.subjectOf(deviceId), create, name: null, personaName: 'Guest' } as const;
  return (await signIn(request, reply, who)) ?? fail(reply, 404, 'NO_SUCH_ACCOUNT', 'no account has this device id');
});

/**
 * idp1's keys by `kid`, each made a KeyObject once; the set is fetched again for a kid it does not hold,
 * at most once a second, as the service's key set does within its cooldown.
 */
const idp1Keys = new Map<string, KeyObject>();
let idp1FetchedAt = 0;
async function idp1Key(kid: unknown): Promise<KeyObject | undefined> {
  if (typeof kid !== 'string' || !environment.idp1JwksUrl) return undefined;
  if (!idp1Keys.has(kid) && Date.now() - idp1FetchedAt > 1000) {
    idp1FetchedAt = Date.now();
    const { keys } = (await (await fetch(environment.idp1JwksUrl)).json()) as { keys: Array<{ kid?: string; kty?: string }> };
    idp1Keys.clear();
    for (const jwk of keys) if (jwk.kid) idp1Keys.set(jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }));
  }
  return idp1Keys.get(kid);
}

const IDP1_ALGORITHMS: jsonwebtoken.Algorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

// The service's verification, with the same library: signature (asymmetric algorithms only), issuer, expiry.
app.get('/auth/idp1', async (request, reply) => {
  const token = AUTHORIZATION.exec(request.headers.authorization ?? '')?.[1];
  let claims: jsonwebtoken.JwtPayload | undefined;
  try {
    const key = token ? await idp1Key(jsonwebtoken.decode(token, { complete: true })?.header.kid) : undefined;
    const verified =
      key && token
        ? jsonwebtoken.verify(token, key, { algorithms: IDP1_ALGORITHMS, issuer: environment.idp1Issuer, clockTolerance: 30 })
        : undefined;
    if (typeof verified === 'object' && typeof verified.exp === 'number') claims = verified;
  } catch {
    claims = undefined;
  }
  if (typeof claims?.sub !== 'string' || claims.sub === '' || claims.sub.length > 255) {
    return fail(reply, 401, 'UNAUTHORIZED', 'the idp1 token is not valid');
  }
  const name = typeof claims.name === 'string' && claims.name.length <= 320 ? claims.name : null;
  const who = { provider: 'idp1', subject: claims.sub, create: true, name, personaName: (name ?? claims.sub).slice(0, 100) } as const;
  return (await signIn(request, reply, who)) ?? fail(reply, 404, 'NO_SUCH_ACCOUNT', 'no account has this idp1 identity');
});

// Leaderboards as a developer without a rank structure writes them: the records in PostgreSQL with the
// service's rank key and its index, the operator in the upsert, and every rank a count of the keys before.
const openPeriods = new Map<string, Promise<string | undefined>>();
const openPeriodOf = (board: string) => {
  let period = openPeriods.get(board);
  if (!period) {
    period = pool
      .query<{ uid: string }>(
        `SELECT uid FROM leaderboard_periods WHERE "leaderboardUid" = $1 AND status = 'OPEN' ORDER BY "startsAt" DESC LIMIT 1`,
        [board],
      )
      .then(({ rows }) => rows[0]?.uid);
    openPeriods.set(board, period);
  }
  return period;
};
const RECORD_COLUMNS = `r.uid, r."leaderboardUid", r."periodUid", r."personaUid", p.name AS "personaName", r.score::float8 AS score,
  r.subscore::float8 AS subscore, r."numScore", r."dateModified", r."rankKey"`;
const RANK_OF = `(SELECT count(*)::int + 1 FROM leaderboard_records c WHERE c."periodUid" = $1 AND c."rankKey" < $2)`;
const RANK_COUNT = `(SELECT count(*)::int FROM leaderboard_records c WHERE c."periodUid" = $1 AND c."rankKey" IS NOT NULL)`;
type RankedRow = Record<string, unknown> & { rankKey: string | null };
const shown = (rows: RankedRow[], firstRank: number, rankCount: number) =>
  rows.map(({ rankKey: _key, ...row }, index) => ({ ...row, rank: firstRank + index, rankCount }));

app.get<{ Params: { id: string }; Querystring: { limit?: string } }>('/leaderboards/:id/records', async (request, reply) => {
  const limit = Number(request.query.limit ?? 20);
  if (!UUID.test(request.params.id) || !Number.isInteger(limit) || limit < 1 || limit > 100)
    return fail(reply, 400, 'VALIDATION_FAILED', 'bad query');
  const period = await openPeriodOf(request.params.id);
  if (!period) return fail(reply, 404, 'NOT_FOUND', 'no such leaderboard');
  const { rows } = await pool.query<RankedRow & { rankCount: number }>({
    name: 'lb-top',
    text: `SELECT ${RECORD_COLUMNS}, ${RANK_COUNT} AS "rankCount" FROM leaderboard_records r JOIN personas p ON p.uid = r."personaUid"
           WHERE r."periodUid" = $1 AND r."rankKey" IS NOT NULL ORDER BY r."rankKey" LIMIT $2`,
    values: [period, limit],
  });
  return shown(
    rows.map(({ rankCount: _count, ...row }) => row as RankedRow),
    1,
    rows[0]?.rankCount ?? 0,
  );
});

async function ranked(period: string, rows: RankedRow[]) {
  const rankCount = (await pool.query<{ count: number }>({ name: 'lb-count', text: `SELECT ${RANK_COUNT} AS count`, values: [period] }))
    .rows[0].count;
  return Promise.all(
    rows.map(async ({ rankKey, ...row }) => ({
      ...row,
      rank:
        rankKey === null
          ? null
          : (await pool.query<{ rank: number }>({ name: 'lb-rank', text: `SELECT ${RANK_OF} AS rank`, values: [period, rankKey] })).rows[0]
              .rank,
      rankCount,
    })),
  );
}

app.get<{ Params: { id: string } }>('/leaderboards/:id/records/me', async (request, reply) => {
  const period = UUID.test(request.params.id) ? await openPeriodOf(request.params.id) : undefined;
  if (!period) return fail(reply, 404, 'NOT_FOUND', 'no such leaderboard');
  const { rows } = await pool.query<RankedRow>({
    name: 'lb-me',
    text: `SELECT ${RECORD_COLUMNS} FROM leaderboard_records r JOIN personas p ON p.uid = r."personaUid" WHERE r."periodUid" = $1 AND r."userUid" = $2`,
    values: [period, callers.get(request)!.sub],
  });
  return ranked(period, rows);
});

app.get<{ Params: { id: string; persona: string }; Querystring: { limit?: string } }>(
  '/leaderboards/:id/records/around/:persona',
  async (request, reply) => {
    const limit = Number(request.query.limit ?? 20);
    const period = UUID.test(request.params.id) && UUID.test(request.params.persona) ? await openPeriodOf(request.params.id) : undefined;
    if (!period || !Number.isInteger(limit) || limit < 1 || limit > 100) return fail(reply, 404, 'NOT_FOUND', 'no such record');
    const own = (
      await pool.query<{ rankKey: string | null }>({
        name: 'lb-own',
        text: `SELECT "rankKey" FROM leaderboard_records WHERE "periodUid" = $1 AND "personaUid" = $2`,
        values: [period, request.params.persona],
      })
    ).rows[0];
    if (!own?.rankKey) return fail(reply, 404, 'NOT_FOUND', 'no ranked record');
    const before = Math.floor((limit - 1) / 2);
    const { rows } = await pool.query<RankedRow>({
      name: 'lb-around',
      text: `(SELECT * FROM (SELECT ${RECORD_COLUMNS} FROM leaderboard_records r JOIN personas p ON p.uid = r."personaUid"
               WHERE r."periodUid" = $1 AND r."rankKey" < $2 ORDER BY r."rankKey" DESC LIMIT $3) b ORDER BY "rankKey")
             UNION ALL
             (SELECT ${RECORD_COLUMNS} FROM leaderboard_records r JOIN personas p ON p.uid = r."personaUid"
               WHERE r."periodUid" = $1 AND r."rankKey" >= $2 ORDER BY r."rankKey" LIMIT $4)`,
      values: [period, own.rankKey, before, limit - before],
    });
    const [first] = await ranked(period, rows.slice(0, 1));
    return shown(rows, first.rank ?? 1, first.rankCount);
  },
);

app.post<{ Params: { id: string }; Body: { score?: unknown } }>('/leaderboards/:id/records', async (request, reply) => {
  const score = request.body?.score;
  const period = UUID.test(request.params.id) ? await openPeriodOf(request.params.id) : undefined;
  if (!period) return fail(reply, 404, 'NOT_FOUND', 'no such leaderboard');
  if (!Number.isSafeInteger(score)) return fail(reply, 400, 'VALIDATION_FAILED', 'score must be an integer');
  const incrementing = `(SELECT operator FROM leaderboards WHERE uid = $4) = 'INCREMENT'`;
  const score_ = `CASE WHEN ${incrementing} THEN r.score + EXCLUDED.score ELSE GREATEST(r.score, EXCLUDED.score) END`;
  const reached = `CASE WHEN ${incrementing} OR EXCLUDED.score > r.score THEN EXCLUDED.reached ELSE r.reached END`;
  const key = (p: { score: string; reached: string; persona: string }) =>
    rankKeySql({ ...p, subscore: '0', desc: 'true', subDesc: 'true' });
  const { rows } = await pool.query<RankedRow>({
    name: 'lb-submit',
    text: `WITH persona AS (SELECT uid FROM personas WHERE "userUid" = $2 ORDER BY "dateCreated", uid LIMIT 1),
           written AS (
             INSERT INTO leaderboard_records AS r ("leaderboardUid", "periodUid", "personaUid", "userUid", score, subscore, "numScore", reached, "rankKey")
             SELECT $4, $1, persona.uid, $2, $3, 0, 1, n.reached, ${key({ score: '$3::bigint', reached: 'n.reached', persona: 'persona.uid' })}
             FROM persona, (SELECT nextval('leaderboard_reached_seq') AS reached) n
             ON CONFLICT ("periodUid", "personaUid") DO UPDATE SET score = ${score_}, reached = ${reached},
               "rankKey" = ${key({ score: score_, reached, persona: 'r."personaUid"' })},
               "numScore" = r."numScore" + 1, version = r.version + 1, "dateModified" = now()
             RETURNING r.*
           )
           SELECT ${RECORD_COLUMNS} FROM written r JOIN personas p ON p.uid = r."personaUid"`,
    values: [period, callers.get(request)!.sub, score, request.params.id],
  });
  return (await ranked(period, rows))[0];
});

// The media scenarios' reference: @fastify/static serving the service's file from a folder on disk, with
// the caching the service's answer has (a year, immutable; ETag and Range from the plugin).
if (process.env.MEDIA_STATIC_DIR) {
  const { default: fastifyStatic } = await import('@fastify/static');
  await app.register(fastifyStatic, {
    root: process.env.MEDIA_STATIC_DIR,
    prefix: '/media/',
    maxAge: '365d',
    immutable: true,
    lastModified: false,
  });
}

// The uploads' reference: a body streamed to disk the plain Node.js way, pipeline() through a SHA-256
// transform into createWriteStream with `flush` (fsync before close), then a rename under the digest.
// No database, no size or time limit, nothing freed by hand.
if (process.env.MEDIA_UPLOAD_DIR) {
  const folder = process.env.MEDIA_UPLOAD_DIR;
  mkdirSync(folder, { recursive: true });
  app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
  app.put('/assets/media/:id/files/:variant', async (request) => {
    const hash = createHash('sha256');
    let size = 0;
    const metered = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const temporary = join(folder, randomUUID());
    await pipeline(request.body as Readable, metered, createWriteStream(temporary, { flags: 'wx', flush: true }));
    const sha256 = hash.digest('hex');
    await rename(temporary, join(folder, sha256));
    return { sha256sum: sha256, size };
  });
}

await app.listen({ port: environment.port, host: '127.0.0.1' });
console.log(`baseline listening on http://127.0.0.1:${environment.port}`);

const stop = () => {
  void app.close().then(() => pool.end());
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
