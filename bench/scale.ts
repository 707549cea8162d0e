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

const SERIES = [
  { key: 'byId', target: 'service', label: 'GET /items/{id}, service', color: '#1f77b4', dash: '' },
  { key: 'byId', target: 'baseline', label: 'GET /items/{id}, baseline', color: '#1f77b4', dash: '6 4' },
  { key: 'gifts', target: 'service', label: 'gift, service', color: '#d62728', dash: '' },
  { key: 'gifts', target: 'baseline', label: 'gift, baseline', color: '#d62728', dash: '6 4' },
] as const;

const compact = (value: number) =>
  value >= 1_000_000 ? `${value / 1_000_000}M` : value >= 1000 ? `${Number((value / 1000).toFixed(1))}k` : String(value);

/**
 * The curve as a self-contained SVG (two panels: by connections, by data size). Drawn here rather than
 * with a charting library: a few polylines and labels do not justify a dependency and a browser.
 */
export function scaleChart(report: ScaleReport, caption: string): string {
  const width = 360;
  const height = 240;
  const margin = { left: 56, right: 12, top: 28, bottom: 56 };
  const panels = [
    {
      title: `by connections (${compact(report.connections.items)} items, ${compact(report.connections.personas)} personas)`,
      ticks: report.connections.points.map((point) => String(point.connections)),
      points: report.connections.points as CurvePoint[],
    },
    {
      title: `by data size (${report.data.connections} connections)`,
      ticks: report.data.points.map((point) => `${compact(point.items)} / ${compact(point.personas)}`),
      points: report.data.points as CurvePoint[],
    },
  ];
  const highest = Math.max(
    ...panels.flatMap((panel) =>
      panel.points.flatMap((point) => SERIES.map((series) => point[series.key][series.target].requestsPerSecond)),
    ),
  );
  const step = 10 ** Math.floor(Math.log10(highest)) / 2;
  const top = Math.ceil(highest / step) * step;
  const parts: string[] = [];
  panels.forEach((panel, index) => {
    const left = index * width + margin.left;
    const plotWidth = width - margin.left - margin.right;
    const plotHeight = height - margin.top - margin.bottom;
    const x = (position: number) => left + (panel.ticks.length === 1 ? plotWidth / 2 : (position * plotWidth) / (panel.ticks.length - 1));
    const y = (value: number) => margin.top + plotHeight - (value / top) * plotHeight;
    parts.push(`<text x="${left + plotWidth / 2}" y="16" text-anchor="middle" font-weight="bold">${panel.title}</text>`);
    for (let value = 0; value <= top; value += step) {
      parts.push(
        `<line x1="${left}" x2="${left + plotWidth}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`,
        `<text x="${left - 6}" y="${y(value) + 4}" text-anchor="end">${compact(value)}</text>`,
      );
    }
    panel.ticks.forEach((tick, position) =>
      parts.push(`<text x="${x(position)}" y="${margin.top + plotHeight + 16}" text-anchor="middle">${tick}</text>`),
    );
    parts.push(
      `<text x="${left + plotWidth / 2}" y="${margin.top + plotHeight + 34}" text-anchor="middle">${index === 0 ? 'connections' : 'items / personas'}</text>`,
    );
    if (index === 0) {
      parts.push(`<text transform="translate(14 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">requests/s</text>`);
    }
    for (const series of SERIES) {
      const coordinates = panel.points.map(
        (point, position) => `${x(position).toFixed(1)},${y(point[series.key][series.target].requestsPerSecond).toFixed(1)}`,
      );
      parts.push(
        `<polyline points="${coordinates.join(' ')}" fill="none" stroke="${series.color}" stroke-width="2"${series.dash ? ` stroke-dasharray="${series.dash}"` : ''}/>`,
        ...coordinates.map((point) => `<circle cx="${point.split(',')[0]}" cy="${point.split(',')[1]}" r="2.5" fill="${series.color}"/>`),
      );
    }
  });
  SERIES.forEach((series, index) => {
    const left = margin.left + index * 170;
    parts.push(
      `<line x1="${left}" x2="${left + 24}" y1="${height + 8}" y2="${height + 8}" stroke="${series.color}" stroke-width="2"${series.dash ? ` stroke-dasharray="${series.dash}"` : ''}/>`,
      `<text x="${left + 30}" y="${height + 12}">${series.label}</text>`,
    );
  });
  parts.push(`<text x="${margin.left}" y="${height + 32}" fill="#555">${escape(caption)}</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width * 2}" height="${height + 42}" viewBox="0 0 ${width * 2} ${height + 42}" font-family="sans-serif" font-size="11">`,
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
