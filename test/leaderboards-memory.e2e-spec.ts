import { InProcessRankIndex } from '../src/leaderboards/ranks/in-process-rank-index.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

type Player = SignedInPlayer & { personaUid: string };

/**
 * The rank memory of an instance, bounded (issue 47, finding 5): each open period's ranked records
 * cost memory on every instance without Redis. Past LEADERBOARD_RANKS_IN_MEMORY the largest periods are
 * ranked from PostgreSQL, and every read must answer the same ranks as from memory.
 */
describe('leaderboards past LEADERBOARD_RANKS_IN_MEMORY', () => {
  let api: TestApp;
  let admin: string;
  let small: any;
  let large: any;
  let few: Player[];
  let many: Player[];

  const submit = (boardUid: string, player: Player, score: number) =>
    api.post<any>(`/leaderboards/${boardUid}/records`, { score }, { token: player.token });
  const gauge = async (name: string) => {
    const metrics = (await api.get<string>('/metrics')).body;
    return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1]);
  };
  /** Every player's rank and the ranked count, from the record each reads of itself. */
  const ranksOf = async (boardUid: string, players: Player[]) =>
    Promise.all(
      players.map(async (player) => {
        const [record] = await api.found<any[]>(`/leaderboards/${boardUid}/records/me`, player.token);
        return [record.rank, record.rankCount];
      }),
    );

  beforeAll(async () => {
    api = await TestApp.start({ LEADERBOARD_RANKS_IN_MEMORY: '6' });
    admin = await api.signIn('admin');
    small = await api.created<any>('/leaderboards', { name: 'Small' }, admin);
    large = await api.created<any>('/leaderboards', { name: 'Large' }, admin);
    few = await Promise.all(Array.from({ length: 3 }, () => api.newPlayerWithPersona('few')));
    many = await Promise.all(Array.from({ length: 9 }, () => api.newPlayerWithPersona('many')));
    for (const [index, player] of few.entries()) await submit(small.uid, player, 30 - index);
    // Scores 90, 80, ..., 10: many[i] holds rank i + 1, each answer ranking it among those before.
    for (const [index, player] of many.entries()) {
      expect((await submit(large.uid, player, 90 - index * 10)).body).toMatchObject({ rank: index + 1, rankCount: index + 1 });
    }
  });
  afterAll(() => api?.close());

  it('holds no more records in memory, ranking the largest period from PostgreSQL instead', async () => {
    await api.found(`/leaderboards/${small.uid}/records`, admin);
    expect(await gauge('leaderboard_ranked_records')).toBe(3);
    expect(await gauge('leaderboard_periods_ranked_from_database')).toBe(1);
  });

  it('answers the same ranks for both periods: each record, a friends list, around a persona', async () => {
    expect(await ranksOf(small.uid, few)).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(await ranksOf(large.uid, many)).toEqual(many.map((_, index) => [index + 1, 9]));
    const friends = await api.found<any[]>(
      `/leaderboards/${large.uid}/records?personaUids=${many[6].personaUid},${many[2].personaUid}`,
      admin,
    );
    expect(friends.map((record) => [record.personaUid, record.rank])).toEqual([
      [many[2].personaUid, 3],
      [many[6].personaUid, 7],
    ]);
    const around = await api.found<any[]>(`/leaderboards/${large.uid}/records/around/${many[4].personaUid}?limit=5`, admin);
    expect(around.map((record) => [record.rank, record.score])).toEqual([
      [3, 70],
      [4, 60],
      [5, 50],
      [6, 40],
      [7, 30],
    ]);
    const edge = await api.found<any[]>(`/leaderboards/${large.uid}/records/around/${many[8].personaUid}?limit=3`, admin);
    expect(edge.map((record) => record.rank)).toEqual([7, 8, 9]);
  });

  it("keeps a page walk at its first page's moment while scores change", async () => {
    const first = await api.get<any[]>(`/leaderboards/${large.uid}/records?limit=3`, { token: admin });
    expect(first.body.map((record) => record.rank)).toEqual([1, 2, 3]);
    // Meanwhile the last overtakes everybody, and a newcomer enters halfway.
    await submit(large.uid, many[8], 1000);
    const newcomer = await api.newPlayerWithPersona('newcomer');
    await submit(large.uid, newcomer, 55);
    const seen = [...first.body];
    for (let cursor = first.headers['x-next-cursor'] as string | undefined; cursor;) {
      const next = await api.get<any[]>(`/leaderboards/${large.uid}/records?limit=3&cursor=${cursor}`, { token: admin });
      seen.push(...next.body);
      cursor = next.headers['x-next-cursor'] as string | undefined;
    }
    expect(seen.map((record) => [record.personaUid, record.rank, record.score, record.rankCount])).toEqual(
      many.map((player, index) => [player.personaUid, index + 1, 90 - index * 10, 9]),
    );
    // A new first page, and each record, see the new order.
    const fresh = await api.found<any[]>(`/leaderboards/${large.uid}/records?limit=2`, admin);
    expect(fresh.map((record) => [record.personaUid, record.rank, record.rankCount])).toEqual([
      [many[8].personaUid, 1, 10],
      [many[0].personaUid, 2, 10],
    ]);
    expect((await ranksOf(large.uid, [newcomer]))[0]).toEqual([6, 10]);
  });

  it('rebuilds within the bound: the periods that fit in memory, the larger ones from PostgreSQL', async () => {
    await api.app.get(InProcessRankIndex).rebuild();
    expect(await gauge('leaderboard_ranked_records')).toBe(3);
    expect(await gauge('leaderboard_periods_ranked_from_database')).toBe(1);
    expect((await ranksOf(large.uid, many)).map(([rank]) => rank)).toEqual([2, 3, 4, 5, 7, 8, 9, 10, 1]);
    expect(await ranksOf(small.uid, few)).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });
});
