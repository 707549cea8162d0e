import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/chromium.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

/**
 * The LiveOps console (docs/CONSOLE.md) as an admin uses it, in Debian's Chromium through playwright-core:
 * sign-in, the player page, a ban, an award, a catalog edit that meets
 * another tab's, and axe-core on every screen at a desktop's and a phone's width. The page runs under
 * the service's CSP: a violation is a console error, and any console error fails the test.
 */
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
const AXE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const WIDTHS = { desktop: 1280, phone: 390 };

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

describe('the LiveOps console in Chromium', () => {
  let api: TestApp;
  let baseUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let admin: SignedInPlayer;
  let player: SignedInPlayer & { personaUid: string };
  let itemUid: string;
  const consoleErrors: string[] = [];

  const watch = (tab: Page) => {
    tab.on('console', (message) => {
      if (message.type() === 'error' && !/the server responded with a status of 4\d\d/.test(message.text()))
        consoleErrors.push(message.text());
    });
    tab.on('pageerror', (error) => consoleErrors.push(error.message));
  };

  /** Opens a console URL as a pasted link: the token lives in the page's memory, so a new page signs in first, then shows that screen. */
  const signIn = async (tab: Page, subject: string, path = '/') => {
    await tab.goto(`${baseUrl}/console${path}`);
    await tab.getByLabel('Subject').fill(subject);
    await tab.getByRole('button', { name: 'Sign in' }).click();
  };
  const open = (tab: Page, path: string) => signIn(tab, 'admin', path);

  /** axe-core's serious and critical findings on the page as it is now (axe runs outside the page's CSP, as a tool does). */
  const seriousViolations = async (tab: Page): Promise<string[]> => {
    await tab.evaluate(AXE);
    const violations = await tab.evaluate(async () => {
      const result = await (globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }).axe.run();
      return result.violations;
    });
    return violations
      .filter(({ impact }) => impact === 'serious' || impact === 'critical')
      .map(({ id, help, nodes }) => `${id}: ${help} (${nodes.map(({ target }) => target.join(' ')).join('; ')})`);
  };

  beforeAll(async () => {
    // The build `npm start` and `npm run build` run; the service reads it once at start.
    execFileSync(
      process.execPath,
      [join(process.cwd(), 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'console', '--logLevel', 'error'],
      { stdio: 'inherit' },
    );
    api = await TestApp.start();
    await api.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    admin = await api.signInPlayer('admin');
    player = await api.signInWithPersona('console-player-kim');
    itemUid = (await api.created<{ uid: string }>('/items', { name: 'Console potion', cost: 10 }, admin.token)).uid;
    await api.created('/sessions', { numTeams: 2, teamSize: 2 }, player.token);
    await api.created('/tickets', { numTeams: 2 }, player.token);
    await api.created('/assets/text', { name: 'Greeting', text: { default: 'Hello', en: 'Hello', fr: 'Bonjour' } }, admin.token);

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } });
    page = await context.newPage();
    watch(page);
    await mkdir(ARTIFACTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  afterEach(() => {
    expect(consoleErrors.splice(0)).toEqual([]);
  });

  it('is served under a strict CSP, and every screen has a URL that answers the page', async () => {
    const response = await fetch(`${baseUrl}/console/players/${player.uid}`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).toContain('&quot;signIn&quot;:&quot;development&quot;');
  });

  it("refuses a player's sign-in and lets an admin in", async () => {
    await signIn(page, 'console-player-kim');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('not an admin');
    await signIn(page, 'admin');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('sign-ins a minute').waitFor();
  });

  it('finds a player by subject, bans them (their token then refused), and unbans them', async () => {
    await page.getByRole('link', { name: 'Players' }).click();
    await page.getByLabel('Search text').fill('console-player-kim');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'idp1:console-player-kim' }).click();
    await page.getByRole('heading', { name: 'Player sessions' }).waitFor();
    expect(page.url()).toBe(`${baseUrl}/console/players/${player.uid}`);

    await page.getByLabel('Reason').fill('aimbot, ticket #77');
    await page.getByLabel(/Days/).fill('7');
    await page.getByRole('button', { name: 'Ban', exact: true }).click();
    await page.getByRole('button', { name: 'Unban' }).waitFor();
    const refused = await api.get('/personas', { token: player.token });
    expect(refused.status).toBe(401);
    const banned = await api.get(`/users/${player.uid}`, { token: admin.token });
    expect(banned.body).toMatchObject({ banned: true, banReason: 'aimbot, ticket #77' });
    expect((await api.found<Array<{ reason: string }>>(`/admin/audit?targetUid=${player.uid}`, admin.token))[0].reason).toBe(
      'aimbot, ticket #77',
    );

    await page.getByRole('button', { name: 'Unban' }).click();
    await page.getByRole('button', { name: 'Ban', exact: true }).waitFor();
    expect((await api.get(`/users/${player.uid}`, { token: admin.token })).body).toMatchObject({ banned: false });
    player = { ...player, ...(await api.signInWithPersona('console-player-kim')) };
  });

  it('awards an item with a reason and shows it in the ledger of the player page', async () => {
    await open(page, `/economy?persona=${player.personaUid}`);
    await page.getByLabel('Item uid').fill(itemUid);
    await page.getByLabel('Quantity').fill('3');
    await page.getByLabel(/Reason/).fill('compensation for the outage');
    await page.getByRole('button', { name: 'Award' }).click();
    await page.getByRole('status').getByText('Awarded').waitFor();

    await page.getByRole('link', { name: 'Players' }).click();
    await page.getByLabel('Search by').selectOption('uid');
    await page.getByLabel('Search text').fill(player.uid);
    await page.getByRole('button', { name: 'Search' }).click();
    const ledger = page.getByRole('region', { name: /^Ledger of/ });
    await ledger.getByRole('cell', { name: '+3' }).waitFor();
    await page
      .getByRole('region', { name: /^Inventory of/ })
      .getByRole('cell', { name: '3', exact: true })
      .waitFor();
  });

  it('shows a conflict when another tab saved the item first, loses nothing, and saves the choice', async () => {
    await open(page, `/catalog/items/${itemUid}`);
    const editor = page.getByLabel('Record (JSON)');
    await editor.waitFor();
    const other = await context.newPage();
    watch(other);
    await open(other, `/catalog/items/${itemUid}`);
    const otherEditor = other.getByLabel('Record (JSON)');
    await otherEditor.waitFor();

    const mine = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    await editor.fill(JSON.stringify({ ...mine, cost: 25 }, null, 2));
    const theirs = JSON.parse(await otherEditor.inputValue()) as Record<string, unknown>;
    await otherEditor.fill(JSON.stringify({ ...theirs, description: 'Edited in the other tab' }, null, 2));
    await other.getByRole('button', { name: 'Save' }).click();
    await other.getByText('version 1').waitFor();
    await other.close();

    await page.getByRole('button', { name: 'Save' }).click();
    const conflict = page.getByRole('region', { name: /Someone else saved this record/ });
    await conflict.waitFor();
    await expect(conflict.innerText()).resolves.toContain('"cost": 25');
    await expect(conflict.innerText()).resolves.toContain('Edited in the other tab');
    await page.screenshot({ path: join(ARTIFACTS, 'catalog-conflict.png'), fullPage: true });
    await page.getByRole('button', { name: /Keep mine/ }).click();
    await page.getByText('version 2').waitFor();
    expect((await api.get(`/items/${itemUid}`, { token: admin.token })).body).toMatchObject({ cost: 25, version: 2 });
  });

  it('deletes a catalog record after a confirmation', async () => {
    const doomed = (await api.created<{ uid: string }>('/items', { name: 'Doomed relic' }, admin.token)).uid;
    await open(page, `/catalog/items/${doomed}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Items' }).waitFor();
    expect((await api.get(`/items/${doomed}`, { token: admin.token })).status).toBe(404);
  });

  const SCREENS: Array<[string, () => string, string]> = [
    ['overview', () => '/', 'Overview'],
    ['players', () => '/players?by=subject-part&q=console', 'Players'],
    ['player', () => `/players/${player.uid}`, 'Achievements'],
    ['economy', () => '/economy', 'Pending trades'],
    ['catalog-items', () => '/catalog/items', 'Items'],
    ['catalog-text', () => '/catalog/text', 'Text assets'],
    ['lobbies', () => '/lobbies', 'Tickets searching'],
    ['audit', () => '/audit', 'Admin audit'],
  ];

  it.each(Object.entries(WIDTHS))('passes axe-core on every screen at %s width (%d px), screenshots kept', async (name, width) => {
    await page.setViewportSize({ width, height: 900 });
    const findings: string[] = [];
    for (const [screen, path, heading] of SCREENS) {
      await open(page, path());
      await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
      findings.push(...(await seriousViolations(page)).map((finding) => `${screen}: ${finding}`));
      await page.screenshot({ path: join(ARTIFACTS, `${screen}-${name}.png`), fullPage: true });
    }
    expect(findings).toEqual([]);
  });
});
