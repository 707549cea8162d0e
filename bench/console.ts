/**
 * The console's player page with 100,000 users (issue 31's goal: under a second on this machine). Run
 * after `npm run build`: `npx tsx bench/console.ts`. An embedded PostgreSQL of its own
 * (.data/bench-console), the built service in development mode (the development sign-in), 100,000
 * users with a persona and three sign-in audit rows each written with SQL, five players with a ledger
 * made through the API, a score on each of 20 boards and a storage object each; then Debian's Chromium opens each of the five player pages from the search box,
 * timed from the click to every section shown. Figures go to docs/PERFORMANCE.md, by hand.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { launchChromium } from '../test/support/chromium.js';
import { launch, waitUntilReady } from './processes.js';

const USERS = 100_000;
const PLAYERS_TIMED = 5;
const PORT = 3887;
const root = join(import.meta.dirname, '..');
const dataDir = join(root, '.data', 'bench-console');
const log = (line: string) => console.log(`[console bench] ${line}`);

async function main(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const database = await startEmbeddedPostgres({ directory: join(dataDir, 'postgres') });
  const service = launch('service', [join(root, 'dist', 'src', 'main.js')], {
    cwd: dataDir,
    logFile: join(dataDir, 'service.log'),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(PORT),
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      MATCHMAKER_ENABLED: 'false',
      RATE_LIMIT_ENABLED: 'false',
    },
  });
  const base = `http://127.0.0.1:${PORT}`;
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    await waitUntilReady(service, `${base}/health/ready`);
    const { rows } = await pool.query<{ count: number }>(`SELECT count(*)::int AS count FROM users WHERE subject LIKE 'crowd-%'`);
    if (rows[0].count < USERS) {
      log(`seeding ${USERS} users, their personas and sign-in audit`);
      await pool.query(`
        WITH made AS (
          INSERT INTO users (provider, subject, name) SELECT 'idp1', 'crowd-' || g, 'Crowd ' || g FROM generate_series(1, ${USERS}) g
          RETURNING uid, name),
        personas AS (INSERT INTO personas ("userUid", name) SELECT uid, name FROM made)
        INSERT INTO auth_audit ("userUid", event, outcome, address) SELECT uid, 'sign-in', 'success', '10.0.0.1' FROM made, generate_series(1, 3)`);
      await pool.query('ANALYZE');
    }

    const signIn = async (subject: string) => {
      const provider = (await (
        await fetch(`${base}/auth/dev-token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ subject }),
        })
      ).json()) as { token: string };
      const ours = (await (await fetch(`${base}/auth/idp1`, { headers: { authorization: `jwt ${provider.token}` } })).json()) as {
        token: string;
      };
      return ours.token;
    };
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `jwt ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<any>;
    };
    const admin = await signIn('admin');
    const item = await call('POST', '/items', admin, { name: `Bench gem ${Date.now()}` });
    // A full page of boards: the player page asks each for the personas' records (docs/CONSOLE.md).
    const boards: string[] = [];
    for (let index = 0; index < 20; index++)
      boards.push((await call('POST', '/leaderboards', admin, { name: `Bench board ${Date.now()}-${index}` })).uid);
    const players: string[] = [];
    for (let index = 0; index < PLAYERS_TIMED; index++) {
      const token = await signIn(`timed-${Date.now()}-${index}`);
      const [persona] = await call('GET', '/personas', token);
      for (const board of boards) await call('POST', `/leaderboards/${board}/records`, token, { score: index * 10 });
      await call('PUT', '/storage', token, { objects: [{ collection: 'saves', key: 'slot-1', value: { level: index } }] });
      for (let award = 0; award < 25; award++) {
        await call('POST', '/inventories/transaction', admin, {
          type: 'AWARD',
          personaOneUid: persona.uid,
          personaOneInventoryItems: [{ itemUid: item.uid, quantity: 1 }],
        });
      }
      players.push(persona.userUid as string);
    }

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${base}/console/players`);
      await page.getByLabel('Subject').fill('admin');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Search text').waitFor();
      const timings: number[] = [];
      for (const uid of players) {
        await page.getByRole('link', { name: 'Players', exact: true }).click();
        await page.getByLabel('Search by').selectOption('uid');
        await page.getByLabel('Search text').fill(uid);
        const started = performance.now();
        await page.getByRole('button', { name: 'Search' }).click();
        await page.getByRole('region', { name: /^Ledger of/ }).waitFor();
        await page.getByRole('region', { name: 'Sign-in audit entries' }).waitFor();
        await page.getByRole('heading', { name: 'Achievements' }).waitFor();
        // The heading, not the table: the first 20 boards by name may be an earlier run's, where these players have no record.
        await page.getByRole('heading', { name: 'Leaderboard records' }).waitFor();
        await page.getByRole('region', { name: /^Storage collections of/ }).waitFor();
        await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
        timings.push(performance.now() - started);
      }
      timings.sort((a, b) => a - b);
      log(`users: ${(await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM users')).rows[0].count}`);
      log(
        `player page, from the search to every section shown (ms): ${timings.map((ms) => ms.toFixed(0)).join(', ')}; median ${timings[Math.floor(timings.length / 2)].toFixed(0)}`,
      );
    } finally {
      await browser.close();
    }
  } finally {
    await pool.end();
    await service.stop();
    await database.stop();
  }
}

await main();
