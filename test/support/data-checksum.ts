import type pg from 'pg';

/** Row count and an md5 of every row's text, per table of the public schema. */
export type DataChecksum = Record<string, { rows: number; md5: string }>;

/**
 * What a refused request must leave untouched: every table's rows, compared as text (each table's rows
 * sorted by their text, so that the order of a scan does not matter). One query for all tables.
 */
export async function dataChecksum(database: pg.Pool): Promise<DataChecksum> {
  let sql = queries.get(database);
  if (sql === undefined) {
    sql = await checksumQuery(database);
    queries.set(database, sql);
  }
  const { rows } = await database.query<{ name: string; rows: number; md5: string }>(sql);
  return Object.fromEntries(rows.map(({ name, rows: count, md5 }) => [name, { rows: count, md5 }]));
}

/** The tables are those of the migrations, fixed for a test file's life: the query is built once. */
const queries = new WeakMap<pg.Pool, string>();

async function checksumQuery(database: pg.Pool): Promise<string> {
  const { rows: tables } = await database.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
  );
  return tables
    .map(
      ({ name }) =>
        `SELECT '${name}' AS name, count(*)::int AS rows, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS md5 FROM "${name}" t`,
    )
    .join(' UNION ALL ');
}
