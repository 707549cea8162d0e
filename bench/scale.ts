/**
 * The scale curve: how the cost of `GET /items/{id}` and of a gift grows with the load (connections)
 * and with the data (items in the catalog, personas with inventories). bench/run.ts measures it in a
 * database of its own, seeded small and grown here with set-based SQL between the measurements, and
 * draws the figures as an SVG chart for the README.
 */
import type pg from 'pg';
import { LARGE_STOCK, type SeededUser } from './seed.js';

export interface CurveFigures {
  requestsPerSecond: number;
  p99: number;
}

export interface CurvePoint {
  /** Both endpoints, service and baseline, at this load and data size. */
  byId: { service: CurveFigures; baseline: CurveFigures };
  gifts: { service: CurveFigures; baseline: CurveFigures };
}

export interface ScaleReport {
  /** At `data` items and personas, by number of connections. */
  connections: { items: number; personas: number; points: Array<CurvePoint & { connections: number }> };
  /** At `connections`, by data size (counted in the database, not assumed). */
  data: { connections: number; points: Array<CurvePoint & { items: number; personas: number }> };
  ledger: { itemMismatches: number; holdingMismatches: number; negativeQuantities: number };
}

export async function countRows(database: pg.Pool): Promise<{ items: number; personas: number }> {
  const { rows } = await database.query<{ items: number; personas: number }>(
    'SELECT (SELECT count(*) FROM items)::int AS items, (SELECT count(*) FROM personas)::int AS personas',
  );
  return rows[0];
}

/** Adds generated items (stats and all, owned by `ownerUid`) until the catalog holds `total`. */
export async function growItems(database: pg.Pool, total: number, ownerUid: string): Promise<void> {
  const { items } = await countRows(database);
  // In slices, so that one statement's memory and WAL stay modest on a small machine.
  for (let from = items + 1; from <= total; from += 100_000) {
    await database.query(
      `INSERT INTO items (uid, name, description, cost, stats, "assetId", "ownerUid", "dateCreated", "dateModified", version)
       SELECT gen_random_uuid(), format('Generated %s #%s', (ARRAY['sword','axe','bow','staff','shield','ring'])[1 + n % 6], n),
              'A generated item of the scale curve.', (n % 5000) + CASE WHEN n % 3 = 0 THEN 0.5 ELSE 0 END,
              jsonb_build_array(jsonb_build_object('name', 'damage', 'value', n % 120),
                                jsonb_build_object('name', 'weight', 'value', (n % 2000) / 100.0),
                                jsonb_build_object('name', 'rarity', 'value', (ARRAY['common','rare','epic'])[1 + n % 3])),
              CASE WHEN n % 2 = 0 THEN format('item-%s', n) END, $3,
              now() - make_interval(secs => n), now() - make_interval(secs => n), n % 5
       FROM generate_series($1::int, $2::int) AS n`,
      [from, Math.min(total, from + 99_999), ownerUid],
    );
  }
  await database.query('ANALYZE items');
}

/**
 * Adds players of one persona each until there are `total` personas, each awarded five random items
 * by an AWARD transaction with its ledger rows (the ledger invariant holds after it); the first
 * `pairs` × 2 new players form disjoint gift pairs whose givers hold a large stock of `goldCoinUid`.
 */
export async function growPersonas(
  database: pg.Pool,
  total: number,
  pairs: number,
  goldCoinUid: string,
  adminUid: string,
): Promise<Array<{ giver: SeededUser; giverPersonaUid: string; receiverPersonaUid: string }>> {
  const added = total - (await countRows(database)).personas;
  if (added < pairs * 2) throw new Error(`growing to ${total} personas adds ${added}, fewer than ${pairs} gift pairs need`);
  const client = await database.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `CREATE TEMPORARY TABLE grown ON COMMIT DROP AS
       SELECT n, gen_random_uuid() AS "userUid", gen_random_uuid() AS "sessionUid", gen_random_uuid() AS "personaUid",
              gen_random_uuid() AS "transactionUid", format('scale-%s', lpad(n::text, 6, '0')) AS subject
       FROM generate_series(1, $1::int) AS n`,
      [added],
    );
    await client.query(`INSERT INTO users (uid, provider, subject, name) SELECT "userUid", 'idp1', subject, subject FROM grown`);
    await client.query(
      `INSERT INTO auth_sessions (uid, "userUid", provider, "expiresAt")
       SELECT "sessionUid", "userUid", 'idp1', now() + interval '1 day' FROM grown`,
    );
    await client.query(`INSERT INTO personas (uid, "userUid", name) SELECT "personaUid", "userUid", subject || ' 1' FROM grown`);
    // Five draws from the catalog per persona (a repeated draw adds up); the givers' gold comes apart.
    await client.query(
      `CREATE TEMPORARY TABLE grown_holdings ON COMMIT DROP AS
       SELECT grown."personaUid", grown."transactionUid", catalog.uids[1 + floor(random() * catalog.count)::int] AS "itemUid",
              sum(1 + floor(random() * 50))::int AS quantity
       FROM grown CROSS JOIN generate_series(1, 5)
            CROSS JOIN (SELECT array_agg(uid) AS uids, count(*) AS count FROM items WHERE uid <> $1) AS catalog
       GROUP BY 1, 2, 3`,
      [goldCoinUid],
    );
    await client.query(`INSERT INTO grown_holdings SELECT "personaUid", "transactionUid", $1, $3 FROM grown WHERE n <= $2`, [
      goldCoinUid,
      pairs,
      LARGE_STOCK,
    ]);
    await client.query(
      `INSERT INTO transactions (uid, type, status, "personaOneUid", "personaOneInventoryItems", "personaOneInventoryItemsAfter", "createdByUid")
       SELECT "transactionUid", 'AWARD', 'COMPLETED', "personaUid",
              jsonb_agg(jsonb_build_object('itemUid', "itemUid", 'quantity', quantity)),
              jsonb_agg(jsonb_build_object('personaUid', "personaUid", 'itemUid', "itemUid", 'quantity', quantity)), $1
       FROM grown_holdings GROUP BY "transactionUid", "personaUid"`,
      [adminUid],
    );
    await client.query(
      `INSERT INTO inventory_items ("personaUid", "itemUid", quantity) SELECT "personaUid", "itemUid", quantity FROM grown_holdings`,
    );
    await client.query(
      `INSERT INTO inventory_ledger ("transactionUid", "personaUid", "itemUid", delta)
       SELECT "transactionUid", "personaUid", "itemUid", quantity FROM grown_holdings`,
    );
    const { rows } = await client.query<{ n: number; userUid: string; sessionUid: string; personaUid: string; subject: string }>(
      'SELECT n, "userUid", "sessionUid", "personaUid", subject FROM grown WHERE n <= $1 ORDER BY n',
      [pairs * 2],
    );
    await client.query('COMMIT');
    await database.query('ANALYZE');
    const users = rows.map((row) => ({
      uid: row.userUid,
      subject: row.subject,
      personaUids: [row.personaUid],
      sessionUid: row.sessionUid,
    }));
    return users.slice(0, pairs).map((giver, index) => ({
      giver,
      giverPersonaUid: giver.personaUids[0],
      receiverPersonaUid: users[pairs + index].personaUids[0],
    }));
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

const ENDPOINTS = [
  { key: 'byId', label: 'GET /items/{id}', color: '#1f77b4' },
  { key: 'gifts', label: 'gift', color: '#d62728' },
] as const;
const TARGETS = [
  { target: 'service', dash: '' },
  { target: 'baseline', dash: '6 4' },
] as const;

const compact = (value: number) =>
  value >= 1_000_000 ? `${value / 1_000_000}M` : value >= 1000 ? `${Number((value / 1000).toFixed(1))}k` : String(value);

/**
 * The curve as a self-contained SVG: one row per endpoint (each with its own scale, a gift costing
 * many reads), one column per axis (connections, data size). Drawn here rather than with a charting
 * library: a few polylines and labels do not justify a dependency and a browser.
 */
export function scaleChart(report: ScaleReport, caption: string): string {
  const width = 370;
  const height = 200;
  const margin = { left: 52, right: 34, top: 24, bottom: 42 };
  const columns = [
    {
      title: `by connections (${compact(report.connections.items)} items, ${compact(report.connections.personas)} personas)`,
      axis: 'connections',
      ticks: report.connections.points.map((point) => String(point.connections)),
      points: report.connections.points as CurvePoint[],
    },
    {
      title: `by data size (${report.data.connections} connections)`,
      axis: 'items / personas',
      ticks: report.data.points.map((point) => `${compact(point.items)} / ${compact(point.personas)}`),
      points: report.data.points as CurvePoint[],
    },
  ];
  const parts: string[] = [];
  const line = (dash: string, color: string) => `stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}`;
  ENDPOINTS.forEach((endpoint, row) => {
    const highest = Math.max(
      1,
      ...columns.flatMap((column) =>
        column.points.flatMap((point) => TARGETS.map(({ target }) => point[endpoint.key][target].requestsPerSecond)),
      ),
    );
    const step = 10 ** Math.floor(Math.log10(highest)) / (highest / 10 ** Math.floor(Math.log10(highest)) < 3 ? 2 : 1);
    const top = Math.ceil(highest / step) * step;
    columns.forEach((column, index) => {
      const left = index * width + margin.left;
      const upper = row * height + margin.top;
      const plotWidth = width - margin.left - margin.right;
      const plotHeight = height - margin.top - margin.bottom;
      const x = (position: number) =>
        left + (column.ticks.length === 1 ? plotWidth / 2 : (position * plotWidth) / (column.ticks.length - 1));
      const y = (value: number) => upper + plotHeight - (value / top) * plotHeight;
      parts.push(
        `<text x="${left + plotWidth / 2}" y="${upper - 8}" text-anchor="middle" font-weight="bold">${escape(endpoint.label)}, ${column.title}</text>`,
      );
      for (let value = 0; value <= top; value += step) {
        parts.push(
          `<line x1="${left}" x2="${left + plotWidth}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`,
          `<text x="${left - 6}" y="${y(value) + 4}" text-anchor="end">${compact(value)}</text>`,
        );
      }
      column.ticks.forEach((tick, position) =>
        parts.push(`<text x="${x(position)}" y="${upper + plotHeight + 15}" text-anchor="middle">${tick}</text>`),
      );
      parts.push(`<text x="${left + plotWidth / 2}" y="${upper + plotHeight + 30}" text-anchor="middle" fill="#555">${column.axis}</text>`);
      if (index === 0) {
        parts.push(`<text transform="translate(12 ${upper + plotHeight / 2}) rotate(-90)" text-anchor="middle">requests/s</text>`);
      }
      for (const { target, dash } of TARGETS) {
        const coordinates = column.points.map((point, position) => [x(position), y(point[endpoint.key][target].requestsPerSecond)]);
        parts.push(
          `<polyline points="${coordinates.map(([cx, cy]) => `${cx.toFixed(1)},${cy.toFixed(1)}`).join(' ')}" fill="none" ${line(dash, endpoint.color)}/>`,
          ...coordinates.map(([cx, cy]) => `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="2.5" fill="${endpoint.color}"/>`),
        );
      }
    });
  });
  const legend = height * ENDPOINTS.length + 6;
  TARGETS.forEach(({ target, dash }, index) => {
    const left = margin.left + index * 160;
    parts.push(
      `<line x1="${left}" x2="${left + 24}" y1="${legend}" y2="${legend}" ${line(dash, '#333')}/>`,
      `<text x="${left + 30}" y="${legend + 4}">${target}</text>`,
    );
  });
  parts.push(`<text x="${margin.left}" y="${legend + 24}" fill="#555">${escape(caption)}</text>`);
  const total = { width: width * columns.length, height: legend + 34 };
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${total.width}" height="${total.height}" viewBox="0 0 ${total.width} ${total.height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The curve as two Markdown tables, for the terminal and the README. */
export function scaleTable(report: ScaleReport): string {
  const header = '| GET /items/{id} service | baseline | ratio | p99 ms | gifts service | baseline | ratio | p99 ms |';
  const rule = '|---:|---:|---:|---:|---:|---:|---:|---:|';
  const cells = (point: CurvePoint) =>
    [point.byId, point.gifts]
      .map(({ service, baseline }) =>
        [
          service.requestsPerSecond,
          baseline.requestsPerSecond,
          (service.requestsPerSecond / baseline.requestsPerSecond).toFixed(2),
          service.p99,
        ].join(' | '),
      )
      .join(' | ');
  const { connections, data } = report;
  return [
    `By connections, at ${connections.items} items and ${connections.personas} personas (requests/s; p99 of the service):`,
    '',
    `| connections ${header}`,
    `|---:${rule}`,
    ...connections.points.map((point) => `| ${point.connections} | ${cells(point)} |`),
    '',
    `By data size, at ${data.connections} connections:`,
    '',
    `| items | personas ${header}`,
    `|---:|---:${rule}`,
    ...data.points.map((point) => `| ${point.items} | ${point.personas} | ${cells(point)} |`),
  ].join('\n');
}
