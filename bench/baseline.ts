/**
 * The benchmark's baseline: what Node.js and PostgreSQL can do on this machine for the item reads and
 * the economy's writes, with nothing of Nest or TypeORM in between. A bare Fastify server (the same
 * Fastify the service runs on) and a `pg` pool of the same size (10) serve
 *
 *   GET /items/:id   GET /items?limit=&skip=   GET /items/count   POST /inventories/transaction
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
 * Run by bench/run.ts as a process of its own: PORT, DATABASE_URL, JWT_SECRET, JWT_ISSUER, JWT_AUDIENCE, and
 * MEDIA_STATIC_DIR, the folder `GET /media/*` serves with @fastify/static.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyReply } from 'fastify';
import pg from 'pg';
// The service's own constant: the same security headers on the wire (bench/run.ts compares every header).
import { API_HEADERS } from '../src/security/http-security.js';

const environment = {
  port: Number(process.env.PORT ?? 3100),
  databaseUrl: required('DATABASE_URL'),
  secret: required('JWT_SECRET'),
  issuer: process.env.JWT_ISSUER ?? 'game-backend',
  audience: process.env.JWT_AUDIENCE ?? 'game-backend',
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

const pool = new pg.Pool({ connectionString: environment.databaseUrl, max: 10, application_name: 'bench-baseline' });

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
  if (request.url === '/health' || request.url.startsWith('/media/')) return;
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

await app.listen({ port: environment.port, host: '127.0.0.1' });
console.log(`baseline listening on http://127.0.0.1:${environment.port}`);

const stop = () => {
  void app.close().then(() => pool.end());
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
