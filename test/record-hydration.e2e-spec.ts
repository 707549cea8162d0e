import { DataSource, type EntityTarget, type ObjectLiteral } from 'typeorm';
import { AchievementsService } from '../src/achievements/achievements.service.js';
import { AchievementDefinition } from '../src/achievements/achievement.entity.js';
import { MediaAsset } from '../src/assets/media-asset.entity.js';
import { MediaAssetsService } from '../src/assets/media-assets.service.js';
import { TextAsset } from '../src/assets/text-asset.entity.js';
import { TextAssetsService } from '../src/assets/text-assets.service.js';
import type { Caller } from '../src/common/auth.decorators.js';
import type { ListQuery } from '../src/common/list-query.js';
import type { RecordEntity } from '../src/common/record.entity.js';
import type { RecordService } from '../src/common/record.service.js';
import { Item } from '../src/items/item.entity.js';
import { ItemsService } from '../src/items/items.service.js';
import { Persona } from '../src/personas/persona.entity.js';
import { PersonasService } from '../src/personas/personas.service.js';
import { seedDemoCatalog } from '../src/seed/seed-demo-catalog.js';
import { Session } from '../src/sessions/session.entity.js';
import { SessionsService } from '../src/sessions/sessions.service.js';
import { TestApp } from './support/test-app.js';

/**
 * The record services read rows and build entities themselves, for speed (RecordService.read and the
 * find-by-id statement, see the README's Performance section). What they build must be what TypeORM's
 * own find() builds from the same rows: same class, same values and types, same JSON.
 */
describe('records as the services read them, against TypeORM', () => {
  let api: TestApp;
  let dataSource: DataSource;
  const admin: Caller = { uid: '00000000-0000-4000-8000-000000000001', roles: ['admin'], isAdmin: true };
  const everything: ListQuery = { limit: 1000, skip: 0, filters: [], order: [{ field: 'uid', direction: 'ASC' }] };

  beforeAll(async () => {
    api = await TestApp.start();
    dataSource = api.app.get(DataSource);
    await seedDemoCatalog(dataSource);
    // Records with nulls, arrays, jsonb and enums in them: sessions with a password and without.
    for (const name of ['host-one', 'host-two']) {
      const token = await api.signIn(name);
      const created = await api.post('/sessions', { numTeams: 2, teamSize: 2, password: name === 'host-one' ? 'secret' : undefined }, { token });
      expect(created.status).toBe(201);
    }
  });
  afterAll(() => api.close());

  const resources: Array<[string, new (...args: never[]) => RecordService<RecordEntity>, EntityTarget<ObjectLiteral>]> = [
    ['items', ItemsService, Item],
    ['media assets', MediaAssetsService, MediaAsset],
    ['text assets', TextAssetsService, TextAsset],
    ['achievements', AchievementsService, AchievementDefinition],
    ['personas', PersonasService, Persona],
    ['sessions', SessionsService, Session],
  ];

  it.each(resources)('lists %s as TypeORM finds them', async (_name, serviceClass, entity) => {
    const listed = await api.app.get(serviceClass).findAll(everything, admin);
    const found = await dataSource.getRepository(entity).find({ order: { uid: 'ASC' } });
    expect(listed.length).toBeGreaterThan(1);
    expect(listed).toStrictEqual(found);
    expect(JSON.stringify(listed)).toBe(JSON.stringify(found));
  });

  it.each(resources)('finds one of %s by id as TypeORM does', async (_name, serviceClass, entity) => {
    const [first] = await dataSource.getRepository(entity).find({ order: { uid: 'ASC' }, take: 1 });
    const record = await api.app.get(serviceClass).findOne(first.uid as string, admin);
    expect(record).toStrictEqual(first);
    expect(JSON.stringify(record)).toBe(JSON.stringify(first));
  });
});
