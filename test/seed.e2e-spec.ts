import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { DEMO_ACHIEVEMENTS, DEMO_ITEMS, DEMO_MEDIA_ASSETS, DEMO_TEXT_ASSETS, ITEMS } from '../src/seed/demo-catalog.js';
import { seedDemoCatalog } from '../src/seed/seed-demo-catalog.js';
import { TestApp } from './support/test-app.js';
import type { AchievementBody, CountBody } from './support/api-types.js';

const run = promisify(execFile);

/** `npm run seed` and the demo catalog it loads, seen through the API as a newcomer sees it. */
describe('the demo catalog (npm run seed)', () => {
  let api: TestApp;
  let admin: string;
  let player: string;
  let databaseUrl: string;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
    player = await api.signIn('newcomer');
    databaseUrl = api.databaseUrl;
  });
  afterAll(() => api.close());

  const count = async (path: string) => (await api.get<CountBody>(`${path}/count`, { token: player })).body.count;

  it('loads the catalog with `npm run seed`, and a second run adds nothing', async () => {
    const seed = () =>
      run('npx', ['tsx', 'scripts/seed.ts'], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          DATABASE_URL: databaseUrl,
          LOG_LEVEL: 'silent',
          // The test app serves from here (DATA_DIR/media).
          MEDIA_DIR: join(process.env.TEST_DATA_DIR!, 'media'),
        },
      });
    const first = await seed();
    expect(first.stdout).toContain(`items: ${DEMO_ITEMS.length} added, 0 already there`);
    const second = await seed();
    expect(second.stdout).toContain(`items: 0 added, ${DEMO_ITEMS.length} already there`);
    expect(second.stdout).toContain(`mediaAssets: 0 added, ${DEMO_MEDIA_ASSETS.length} already there`);
    expect(second.stdout).not.toContain(databaseUrl); // the password of the URL stays out of the output

    expect(await count('/items')).toBe(DEMO_ITEMS.length);
    expect(await count('/assets/media')).toBe(DEMO_MEDIA_ASSETS.length);
    expect(await count('/assets/text')).toBe(DEMO_TEXT_ASSETS.length);
    expect(await count('/achievements')).toBe(DEMO_ACHIEVEMENTS.length);
    expect(DEMO_ITEMS.length).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it('serves a living catalog: items in catalog order with stats, parents and icons; texts in two languages', async () => {
    const items = (await api.get<Array<Record<string, any>>>('/items', { token: player })).body;
    expect(items.map((item) => item.name)).toEqual(DEMO_ITEMS.map((item) => item.name));
    const longsword = items.find((item) => item.uid === ITEMS.emberforgedLongsword)!;
    expect(longsword).toMatchObject({ version: 0, cost: 1500, parentUID: ITEMS.steelSword });
    expect(longsword.stats).toContainEqual({ name: 'twoHanded', value: true });
    expect(longsword).not.toHaveProperty('ownerUid');

    // The parent chain leads to a root, and every icon is a stored media asset.
    const steel = await api.get(`/items/${ITEMS.steelSword}`, { token: player });
    expect(steel.body.parentUID).toBe(ITEMS.ironSword);
    for (const item of items) {
      const icon = await api.get(`/assets/media/${item.iconAssetId}`, { token: player });
      expect(icon.status).toBe(200);
      expect(Object.keys(icon.body.files)).toEqual(['default', 'thumbnail']);
      expect(icon.body.files.default).toMatchObject({ version: 0, mimetype: 'image/png', uid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      // The seed uploaded real icons: the service serves them.
      const served = await api.app.inject({ method: 'GET', url: new URL(icon.body.files.default.uri as string).pathname });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.subarray(1, 4).toString()).toBe('PNG');
      expect(served.rawPayload.length).toBe(icon.body.files.default.size);
    }

    const [welcome] = DEMO_TEXT_ASSETS;
    const portuguese = await api.get(`/assets/text/${welcome.uid}/resolve?lang=pt-BR`, { token: player });
    expect(portuguese.body).toEqual({ language: 'pt-BR', text: 'Bem-vindo de volta, aventureiro!' });
    const english = await api.get(`/assets/text/${welcome.uid}/resolve`, { token: player, headers: { 'accept-language': 'en-GB' } });
    expect(english.body).toEqual({ language: 'en', text: 'Welcome back, adventurer!' });

    const achievements = (await api.get<AchievementBody[]>('/achievements', { token: player })).body;
    expect(achievements.map((achievement) => achievement.name)).toEqual(DEMO_ACHIEVEMENTS.map((achievement) => achievement.name));
  });

  it('keeps what an admin changed, and puts back a demo record that was deleted', async () => {
    const dataSource = api.app.get(DataSource);
    const gold = await api.put(`/items/${ITEMS.goldCoin}`, { cost: 2, version: 0 }, { token: admin });
    expect(gold.status).toBe(200);
    expect((await api.delete(`/items/${ITEMS.dragonScale}`, { token: admin })).status).toBe(200);

    const report = await seedDemoCatalog(dataSource);
    expect(report.items).toEqual({ total: DEMO_ITEMS.length, added: 1 });
    expect(report.achievements).toEqual({ total: DEMO_ACHIEVEMENTS.length, added: 0 });
    expect((await api.get(`/items/${ITEMS.goldCoin}`, { token: player })).body).toMatchObject({ cost: 2, version: 1 });
    expect((await api.get(`/items/${ITEMS.dragonScale}`, { token: player })).body).toMatchObject({ name: 'Dragon scale', version: 0 });
    expect(await count('/items')).toBe(DEMO_ITEMS.length);
  });

  // The seed writes rows directly; the API must accept the same records, or the demo would show
  // data that no client could have created.
  it('holds only records the API itself accepts', async () => {
    const accepted = async (path: string, body: object) => {
      const response = await api.post(path, body, { token: admin });
      expect({ path, status: response.status, body: response.body }).toMatchObject({ status: 201 });
    };
    for (const { uid: _uid, ...item } of DEMO_ITEMS) {
      await accepted('/items', item);
    }
    for (const { uid: _uid, ...asset } of DEMO_MEDIA_ASSETS) {
      await accepted('/assets/media', asset);
    }
    for (const { uid: _uid, ...asset } of DEMO_TEXT_ASSETS) {
      await accepted('/assets/text', asset);
    }
    for (const { uid: _uid, ...achievement } of DEMO_ACHIEVEMENTS) {
      await accepted('/achievements', achievement);
    }
  });
});
