/**
 * The benchmark's baseline: what Node.js and PostgreSQL can do on this machine for the item reads, with
 * nothing of Nest or TypeORM in between. A bare Fastify server (the same Fastify the service runs on)
 * and a `pg` pool of the same size (10) serve
 *
 *   GET /items/:id   GET /items?limit=&skip=   GET /items/count
 *
 * with the same JWT check as the service's JwtGuard (HS256 signature, issuer, audience, expiry, and the
 * `sub`/`roles` claims), the same JSON (same fields in the same order, numbers as numbers, dates as ISO
 * strings with milliseconds) and the same ETag and X-Request-Id headers. Only the default order and no
 * filters: that is all the benchmark asks of it. bench/run.ts checks that both answer byte for byte the
 * same before it measures anything.
 *
 * Run by bench/run.ts as a process of its own: PORT, DATABASE_URL, JWT_SECRET, JWT_ISSUER, JWT_AUDIENCE.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyReply } from 'fastify';
import pg from 'pg';

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

app.addHook('onRequest', async (request, reply) => {
  void reply.header('X-Request-Id', request.id);
  if (request.url === '/health') return;
  const match = AUTHORIZATION.exec(request.headers.authorization ?? '');
  if (!match || !verify(match[1])) return fail(reply, 401, 'UNAUTHORIZED', 'the token is invalid or has expired: sign in again');
});

app.get('/health', () => ({ status: 'ok' }));

app.get('/items/count', async () => {
  const { rows } = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM items');
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
  const { rows } = await pool.query<{ version: number }>(`SELECT ${ITEM_COLUMNS} FROM items WHERE uid = $1`, [id]);
  if (rows.length === 0) return fail(reply, 404, 'NOT_FOUND', `item ${id} not found`);
  void reply.header('ETag', `"${rows[0].version}"`);
  return rows[0];
});

await app.listen({ port: environment.port, host: '127.0.0.1' });
console.log(`baseline listening on http://127.0.0.1:${environment.port}`);

const stop = () => {
  void app.close().then(() => pool.end());
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
