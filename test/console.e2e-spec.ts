import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { LeaderboardWorker } from '../src/leaderboards/worker/leaderboard-worker.js';
import { launchChromium } from './support/chromium.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

/**
 * The LiveOps console (docs/CONSOLE.md) as an admin uses it, in Debian's Chromium through playwright-core:
 * sign-in, the player page, a ban, an award, a catalog edit that meets
 * another tab's, a storage edit that meets the game's write, a leaderboard record deleted, a media
 * file uploaded, and axe-core on every screen at a desktop's and a phone's width. The page runs under
 * the service's CSP: a violation is a console error, and any console error fails the test.
 */
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
const AXE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const WIDTHS = { desktop: 1280, phone: 390 };
/** A 1x1 PNG, the file a media variant gets from the console. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

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
  let boardUid: string;
  let rival: SignedInPlayer & { personaUid: string };
  let mediaUid: string;
  let closedPeriodUid: string;
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
    // A reset's period closes at the worker's next round rather than 20 s later.
    api = await TestApp.start({ LEADERBOARD_CLOSE_DELAY: '0' });
    await api.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    admin = await api.signInPlayer('admin');
    player = await api.signInWithPersona('console-player-kim');
    itemUid = (await api.created<{ uid: string }>('/items', { name: 'Console potion', cost: 10 }, admin.token)).uid;
    await api.created('/sessions', { numTeams: 2, teamSize: 2 }, player.token);
    await api.created('/tickets', { numTeams: 2 }, player.token);
    await api.created('/assets/text', { name: 'Greeting', text: { default: 'Hello', en: 'Hello', fr: 'Bonjour' } }, admin.token);
    rival = await api.signInWithPersona('console-rival-ada');
    boardUid = (
      await api.created<{ uid: string }>(
        '/leaderboards',
        { name: 'Weekly sprint', rewards: [{ rankFrom: 1, rankTo: 1, items: [{ itemUid, quantity: 5 }] }] },
        admin.token,
      )
    ).uid;
    await api.post(`/leaderboards/${boardUid}/records`, { score: 50 }, { token: player.token });
    await api.post(`/leaderboards/${boardUid}/records`, { score: 70 }, { token: rival.token });
    await api.put('/storage', { objects: [{ collection: 'saves', key: 'slot-1', value: { level: 3 } }] }, { token: player.token });
    mediaUid = (
      await api.created<{ uid: string }>(
        '/assets/media',
        {
          name: 'Potion icon',
          files: { default: { mimetype: 'image/png', name: 'potion.png', uri: 'https://cdn.example.com/potion.png' } },
        },
        admin.token,
      )
    ).uid;

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

  /** What the database holds of the player's storage object, as the API reads it to an admin. */
  const storedSlot = async () =>
    (await api.found<{ value: Record<string, unknown> }>(`/storage/saves/slot-1?ownerUid=${player.uid}`, admin.token)).value;

  it('edits a storage object, and shows a conflicting write from the game without losing either', async () => {
    await open(page, '/players/' + player.uid);
    await page
      .getByRole('region', { name: /^Storage collections of/ })
      .getByRole('link', { name: 'saves' })
      .click();
    await page.getByRole('link', { name: 'slot-1' }).click();
    const editor = page.getByLabel('Value (JSON object)');
    await editor.waitFor();
    expect(JSON.parse(await editor.inputValue())).toEqual({ level: 3 });

    await editor.fill(JSON.stringify({ level: 4, restoredBy: 'support' }));
    await page.getByLabel(/Reason/).fill('lost progress, ticket #90');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    expect(await storedSlot()).toEqual({ level: 4, restoredBy: 'support' });
    const audit = await api.found<Array<{ action: string; reason: string | null }>>('/admin/audit?action=PUT%20%2Fstorage', admin.token);
    expect(audit[0]).toMatchObject({ action: 'PUT /storage', reason: 'lost progress, ticket #90' });

    // The game writes the object (the player's device) while the admin edits it again.
    await editor.fill(JSON.stringify({ level: 4, restoredBy: 'support', bonus: 'potion' }));
    expect(
      (await api.put('/storage', { objects: [{ collection: 'saves', key: 'slot-1', value: { level: 5 } }] }, { token: player.token }))
        .status,
    ).toBe(200);
    await page.getByRole('button', { name: 'Save' }).click();
    const conflict = page.getByRole('region', { name: /Someone else saved this object/ });
    await conflict.waitFor();
    await expect(conflict.innerText()).resolves.toContain('"bonus":"potion"');
    await expect(conflict.innerText()).resolves.toContain('"level": 5');
    expect(await storedSlot()).toEqual({ level: 5 });
    await page.screenshot({ path: join(ARTIFACTS, 'storage-conflict.png'), fullPage: true });

    await page.getByRole('button', { name: /Keep mine/ }).click();
    // The conflict goes as the save starts ("Saving…"); "Saved." then comes from this save, not the first.
    await conflict.waitFor({ state: 'detached' });
    await page.getByRole('status').getByText('Saved.').waitFor();
    expect(await storedSlot()).toEqual({ level: 4, restoredBy: 'support', bonus: 'potion' });
  });

  it('deletes a leaderboard record after a confirmation: gone from the ranks, kept in the admin audit with its reason', async () => {
    const rivalName = (await api.found<{ name: string }>(`/personas/${rival.personaUid}`, admin.token)).name;
    await open(page, `/leaderboards/${boardUid}`);
    const ranks = page.getByRole('region', { name: 'Ranked records', exact: true });
    const deleteRival = ranks.getByRole('button', { name: `Delete the record of ${rivalName}` });
    await deleteRival.waitFor();
    await page.getByRole('region', { name: 'Rewards by rank' }).getByRole('cell', { name: /^5 ×/ }).waitFor();

    await deleteRival.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Reason/).fill('impossible score, ticket #91');
    await dialog.getByRole('button', { name: 'Delete record' }).click();
    await page.getByRole('status').getByText(`Deleted the record of ${rivalName}.`).waitFor();
    await deleteRival.waitFor({ state: 'detached' });
    await expect(ranks.getByRole('row').nth(1).innerText()).resolves.toMatch(/^1\s/);

    const left = await api.found<Array<{ personaUid: string }>>(`/leaderboards/${boardUid}/records`, admin.token);
    expect(left.map((record) => record.personaUid)).toEqual([player.personaUid]);
    const [entry] = await api.found<Array<{ action: string; reason: string | null; status: number }>>(
      `/admin/audit?targetUid=${boardUid}`,
      admin.token,
    );
    expect(entry).toMatchObject({
      action: 'DELETE /leaderboards/{id}/records/{personaUid}',
      reason: 'impossible score, ticket #91',
      status: 204,
    });
  });

  it("shows the player's leaderboard records and storage on the player page", async () => {
    await open(page, `/players/${player.uid}`);
    const records = page.getByRole('region', { name: /^Leaderboard records of / });
    await records.getByRole('link', { name: 'Weekly sprint' }).waitFor();
    await expect(records.getByRole('row').nth(1).innerText()).resolves.toMatch(/^Weekly sprint\s+1\s+1\s+50\s+1\s+OPEN/);
    await expect(records.innerText()).resolves.toContain('50');
    await page.getByRole('region', { name: 'Identities of the account' }).getByRole('cell', { name: 'idp1', exact: true }).waitFor();
  });

  it('resets a board after a confirmation: the ranks start empty, the closed period shows its prizes paid, the admin audit keeps it', async () => {
    const potions = async () =>
      (await api.found<Array<{ itemUid: string; quantity: number }>>('/inventories', player.token)).find((row) => row.itemUid === itemUid)
        ?.quantity ?? 0;
    const before = await potions();
    const playerName = (await api.found<{ name: string }>(`/personas/${player.personaUid}`, admin.token)).name;
    await open(page, `/leaderboards/${boardUid}`);
    const ranks = page.getByRole('region', { name: 'Ranked records', exact: true });
    await ranks.getByRole('row').nth(1).waitFor();
    await page.getByRole('button', { name: 'Reset the board' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Reason/).fill('season restart, ticket #93');
    await dialog.getByRole('button', { name: 'Reset now' }).click();
    await page
      .getByRole('status')
      .getByText(/^Reset Weekly sprint/)
      .waitFor();
    await ranks.waitFor({ state: 'detached' });
    await page
      .getByRole('heading', { name: 'Ranked records (current period)' })
      .locator('xpath=..')
      .getByText('Nothing here yet.')
      .waitFor();
    expect(await api.found<unknown[]>(`/leaderboards/${boardUid}/records`, admin.token)).toEqual([]);

    // The ended period closes at the worker's round, as a scheduled end would, and pays its prize.
    await api.app.get(LeaderboardWorker).runOnce();
    const [closed] = await api.found<Array<{ uid: string; status: string }>>(`/leaderboards/${boardUid}/periods`, admin.token);
    expect(closed.status).toBe('CLOSED');
    closedPeriodUid = closed.uid;
    await open(page, `/leaderboards/${boardUid}?period=${closedPeriodUid}`);
    const prizes = page.getByRole('region', { name: 'Prizes of the period' });
    await prizes.getByRole('cell', { name: 'PAID' }).waitFor();
    await expect(prizes.getByRole('row').nth(1).innerText()).resolves.toMatch(new RegExp(`^1\\s+${playerName}`));
    const [paid] = await api.found<Array<{ transactionUid: string }>>(
      `/leaderboards/${boardUid}/periods/${closedPeriodUid}/payouts`,
      admin.token,
    );
    await prizes.getByRole('link', { name: paid.transactionUid }).click();
    await page
      .getByRole('heading', { name: /Transaction/ })
      .first()
      .waitFor();
    await page.goBack();
    await page.getByRole('region', { name: 'Ranked records', exact: true }).getByRole('row').nth(1).waitFor();
    expect(await potions()).toBe(before + 5);

    const [entry] = await api.found<Array<{ action: string; reason: string | null; status: number }>>(
      `/admin/audit?targetUid=${boardUid}`,
      admin.token,
    );
    expect(entry).toMatchObject({ action: 'POST /leaderboards/{id}/reset', reason: 'season restart, ticket #93', status: 200 });
  });

  it("shows a player's linked device and unlinks it with a reason", async () => {
    expect((await api.post('/account/link/device', { deviceId: randomUUID() }, { token: rival.token })).status).toBe(200);
    await open(page, `/players/${rival.uid}`);
    const identities = page.getByRole('region', { name: 'Identities of the account' });
    await identities.getByRole('cell', { name: 'device (every device id)' }).waitFor();
    await identities.getByRole('button', { name: 'Unlink device' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Reason/).fill('stolen phone, ticket #92');
    await dialog.getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('status').getByText('Unlinked device.').waitFor();
    await identities.getByRole('cell', { name: 'device (every device id)' }).waitFor({ state: 'detached' });

    const account = await api.found<{ identities: Array<{ provider: string }> }>(`/users/${rival.uid}`, admin.token);
    expect(account.identities.map((identity) => identity.provider)).toEqual(['idp1']);
    const [entry] = await api.found<Array<{ action: string; reason: string | null }>>(`/admin/audit?targetUid=${rival.uid}`, admin.token);
    expect(entry).toMatchObject({ action: 'DELETE /users/{id}/identities/{provider}', reason: 'stolen phone, ticket #92' });
  });

  it('uploads a file for a media asset variant and shows the image', async () => {
    await open(page, `/catalog/media/${mediaUid}`);
    await page.getByRole('textbox', { name: 'Variant' }).fill('default');
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'potion.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('status').getByText('Uploaded potion.png as default.').waitFor();
    const image = page.getByRole('img', { name: 'default: potion.png' });
    await image.waitFor();
    await page.waitForFunction(
      (element) => (element as unknown as { complete: boolean; naturalWidth: number }).complete,
      await image.elementHandle(),
    );
    expect(await image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
    const asset = await api.found<{ files: { default: { size: number; uri: string } } }>(`/assets/media/${mediaUid}`, admin.token);
    expect(asset.files.default.size).toBe(PNG.length);

    await page
      .getByRole('link', { name: /Media assets/ })
      .first()
      .click();
    await page.getByRole('region', { name: 'Media assets', exact: true }).locator('img').first().waitFor();
  });

  const SCREENS: Array<[string, () => string, string]> = [
    ['overview', () => '/', 'Overview'],
    ['players', () => '/players?by=subject-part&q=console', 'Players'],
    ['player', () => `/players/${player.uid}`, 'Achievements'],
    ['economy', () => '/economy', 'Pending trades'],
    ['catalog-items', () => '/catalog/items', 'Items'],
    ['catalog-text', () => '/catalog/text', 'Text assets'],
    ['catalog-media', () => `/catalog/media/${mediaUid}`, 'Files'],
    ['leaderboards', () => '/leaderboards', 'Leaderboards and tournaments'],
    ['leaderboard', () => `/leaderboards/${boardUid}`, 'Rewards'],
    ['leaderboard-closed', () => `/leaderboards/${boardUid}?period=${closedPeriodUid}`, 'Prizes paid'],
    ['storage', () => `/storage?owner=${player.uid}`, 'Storage'],
    ['storage-collection', () => `/storage/${player.uid}/saves`, 'Collection saves'],
    ['storage-object', () => `/storage/${player.uid}/saves/slot-1`, 'saves / slot-1'],
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
