import { DataSource } from 'typeorm';
import { AchievementsRepository } from '../src/achievements/achievements.repository.js';
import { MediaAssetsRepository } from '../src/assets/media-assets.repository.js';
import { TextAssetsRepository } from '../src/assets/text-assets.repository.js';
import { UsersRepository } from '../src/auth/users/users.repository.js';
import type { Caller } from '../src/common/auth.decorators.js';
import { secretFields } from '../src/common/fields.js';
import type { ListQuery } from '../src/common/list-query.js';
import type { RecordEntity } from '../src/common/record.entity.js';
import type { RecordRepository } from '../src/database/record.repository.js';
import { InventoryRepository } from '../src/economy/inventory.repository.js';
import { TransactionsRepository } from '../src/economy/transactions.repository.js';
import { ItemsRepository } from '../src/items/items.repository.js';
import { PersonasRepository } from '../src/personas/personas.repository.js';
import { seedDemoCatalog } from '../src/seed/seed-demo-catalog.js';
import { SessionsRepository } from '../src/sessions/sessions.repository.js';
import { SkillsRepository } from '../src/skills/skills.repository.js';
import { TicketsRepository } from '../src/tickets/tickets.repository.js';
import { TestApp } from './support/test-app.js';

/**
 * The repositories read rows under the entities' property names and make records of them themselves
 * (RecordRepository.recordsOf; TypeORM's entity building was a visible share of a read,
 * docs/PERFORMANCE.md). What they make must be what TypeORM's own find() makes from the same rows:
 * same class, same values and types, same JSON; for every repository, with rows holding nulls,
 * arrays, jsonb, enums and dates, by list, by id, and as inserts and updates return them.
 */
describe('records as the repositories read them, against TypeORM', () => {
  let api: TestApp;
  let dataSource: DataSource;
  const admin: Caller = {
    uid: '00000000-0000-4000-8000-000000000001',
    roles: ['admin'],
    isAdmin: true,
    sessionUid: '00000000-0000-4000-8000-000000000002',
    tokenIssuedAt: new Date(),
    tokenExpiresAt: new Date(Date.now() + 3600_000),
  };
  const everything: ListQuery = { limit: 1000, skip: 0, filters: [], order: [{ field: 'uid', direction: 'ASC' }] };

  beforeAll(async () => {
    api = await TestApp.start();
    dataSource = api.app.get(DataSource);
    await seedDemoCatalog(dataSource);
    const adminToken = await api.signIn('admin');
    const players = await Promise.all(['host-one', 'host-two'].map((name) => api.signInWithPersona(name)));
    for (const [index, player] of players.entries()) {
      // Sessions with a password and without; tickets; unlocks; skill progress of two kinds.
      const session = await api.post(
        '/sessions',
        { numTeams: 2, teamSize: 2, password: index === 0 ? 'secret' : undefined },
        { token: player.token },
      );
      expect(session.status).toBe(201);
      const ticket = await api.post(
        '/tickets',
        { numTeams: 2, statistics: [{ name: 'skill', value: 1200 + index }] },
        { token: player.token },
      );
      expect(ticket.status).toBe(201);
      const [achievement] = (await api.get<Array<{ uid: string }>>('/achievements', { token: player.token })).body;
      expect((await api.get(`/achievements/${achievement.uid}/unlock`, { token: player.token })).status).toBe(200);
      const skill = `/personas/${player.personaUid}/archetypes/warrior/skills/swordplay/progress`;
      expect((await api.post(skill, { value: index === 0 ? 5 : { tier: 'gold' } }, { token: player.token })).status).toBe(204);
    }
    // Inventories, transactions and ledger rows: an award, then a trade that completes.
    const [item] = (await api.get<Array<{ uid: string }>>('/items', { token: adminToken })).body;
    const award = await api.post(
      '/inventories/transaction',
      { type: 'AWARD', personaOneUid: players[0].personaUid, personaOneInventoryItems: [{ itemUid: item.uid, quantity: 3 }] },
      { token: adminToken },
    );
    expect(award.status).toBe(200);
    const gift = await api.post(
      '/inventories/transaction',
      {
        personaOneUid: players[0].personaUid,
        personaTwoUid: players[1].personaUid,
        personaOneInventoryItems: [{ itemUid: item.uid, quantity: 1 }],
      },
      { token: players[0].token },
    );
    expect(gift.status).toBe(200);
  });
  afterAll(() => api.close());

  const repositories: Array<[string, new (...args: never[]) => RecordRepository<RecordEntity>]> = [
    ['items', ItemsRepository],
    ['media assets', MediaAssetsRepository],
    ['text assets', TextAssetsRepository],
    ['achievements', AchievementsRepository],
    ['personas', PersonasRepository],
    ['sessions', SessionsRepository],
    ['tickets', TicketsRepository],
    ['inventories', InventoryRepository],
    ['transactions', TransactionsRepository],
    ['skill progress', SkillsRepository],
    ['users', UsersRepository],
  ];

  it.each(repositories)(
    'lists (secret fields unread) and finds %s through their repository as TypeORM finds them',
    async (_name, repositoryClass) => {
      const repository = api.app.get(repositoryClass);
      const listed = await repository.findAll(everything, admin);
      const found = await dataSource.getRepository(repository.entity).find({ order: { uid: 'ASC' } });
      expect(listed.length).toBeGreaterThan(1);
      // A list page is read for an answer: its records leave the @Secret() fields unset, and only them.
      const unset = Object.fromEntries(
        [...(secretFields(repository.entity as new () => RecordEntity) ?? [])].map((field) => [field, undefined]),
      );
      expect(listed).toStrictEqual(
        found.map((record) => Object.assign(Object.create(Object.getPrototypeOf(record) as object) as object, record, unset)),
      );
      expect(JSON.stringify(listed)).toBe(JSON.stringify(found));
      expect(await repository.findOne(found[0].uid, admin)).toStrictEqual(found[0]);
    },
  );

  it('returns from an insert and a versioned update what TypeORM then finds', async () => {
    const items = api.app.get(ItemsRepository);
    const inserted = await items.insert({ name: 'Returned', stats: [{ name: 'damage', value: 3 }], cost: 7 });
    expect(inserted).toStrictEqual(await dataSource.getRepository(items.entity).findOneByOrFail({ uid: inserted.uid }));
    const updated = await items.updateVersioned(inserted.uid, { description: 'Changed', stats: [] }, 0);
    expect(updated).toMatchObject({ version: 1, description: 'Changed', stats: [] });
    expect(updated).toStrictEqual(await dataSource.getRepository(items.entity).findOneByOrFail({ uid: inserted.uid }));
    expect(JSON.stringify(updated)).toBe(JSON.stringify(await items.findOne(inserted.uid, admin)));
  });
});
