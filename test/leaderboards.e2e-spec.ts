import { LeaderboardWorker } from '../src/leaderboards/leaderboard-worker.js';
import { applySubmission, type Operator, type SortOrder } from '../src/leaderboards/operators.js';
import { expectErrorBody, expectValidationError } from './support/expectations.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

type Player = SignedInPlayer & { personaUid: string };

describe('leaderboards', () => {
  let api: TestApp;
  let admin: string;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    await api?.close();
  });

  const board = (body: Record<string, unknown> = {}) => api.created<any>('/leaderboards', { name: `Board ${Math.random()}`, ...body }, admin);
  const submit = (boardUid: string, player: { token: string }, body: Record<string, unknown>) =>
    api.post<any>(`/leaderboards/${boardUid}/records`, body, { token: player.token });
  const players = (count: number): Promise<Player[]> => Promise.all(Array.from({ length: count }, () => api.newPlayerWithPersona('ranked')));

  describe('boards', () => {
    it('are created by admins with defaults, read by players, listed, counted and filtered', async () => {
      const player = await api.newPlayer();
      const created = await board({ name: 'Weekly', resetSchedule: '0 0 * * 1', minScore: -10, maxScore: '9223372036854775807' });
      expect(created).toMatchObject({
        name: 'Weekly',
        sortOrder: 'DESC',
        operator: 'BEST',
        subscoreSortOrder: 'DESC',
        subscoreOperator: 'BEST',
        resetSchedule: '0 0 * * 1',
        authoritative: false,
        minScore: -10,
        maxScore: '9223372036854775807',
        rankLostTop: 10,
        keepPeriods: 10,
        rewards: [],
        version: 0,
      });
      expect(created).not.toHaveProperty('ownerUid');
      expect(await api.found(`/leaderboards/${created.uid}`, player.token)).toEqual(created);
      const listed = await api.found<any[]>(`/leaderboards?name=Weekly&resetSchedule=${encodeURIComponent('0 0 * * 1')}`, player.token);
      expect(listed.map((entry) => entry.uid)).toContain(created.uid);
      expect((await api.found<any>('/leaderboards/count?name=Weekly', player.token)).count).toBeGreaterThanOrEqual(1);
      expectErrorBody(await api.post('/leaderboards', { name: 'Mine' }, { token: player.token }), 403, 'FORBIDDEN');
    });

    it('refuse a change of the settings that give stored scores their meaning, naming them, and take the others with If-Match', async () => {
      const created = await board({ name: 'Fixed' });
      const refused = await api.put<any>(`/leaderboards/${created.uid}`, { sortOrder: 'ASC', operator: 'SET', name: 'Renamed' }, { token: admin });
      expectErrorBody(refused, 409, 'IMMUTABLE_SETTING');
      expect(refused.body.errors.map((error: any) => error.field).sort()).toEqual(['operator', 'sortOrder']);
      expect(refused.body.message).toMatch(/sortOrder, operator/);
      // The record as read, sent back whole, changes nothing it may not.
      const same = await api.put<any>(`/leaderboards/${created.uid}`, { ...created, name: 'Renamed' }, { token: admin, headers: { 'if-match': '"0"' } });
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ name: 'Renamed', version: 1 });
      expectErrorBody(await api.put(`/leaderboards/${created.uid}`, { name: 'Again' }, { token: admin, headers: { 'if-match': '"0"' } }), 409, 'VERSION_CONFLICT');
    });

    it('refuse bad settings with a 400 naming the field', async () => {
      expectValidationError(await api.post('/leaderboards', { name: 'x', resetSchedule: 'every monday' }, { token: admin }), 'resetSchedule');
      expectValidationError(await api.post('/leaderboards', { name: 'x', minScore: 5, maxScore: 4 }, { token: admin }), 'maxScore');
      expectValidationError(await api.post('/leaderboards', { name: 'x', maxScore: 2 ** 60 }, { token: admin }), 'maxScore');
      expectValidationError(await api.post('/leaderboards', { name: 'x', sortOrder: 'UP' }, { token: admin }), 'sortOrder');
      expectValidationError(
        await api.post('/leaderboards', { name: 'x', rewards: [{ rankFrom: 1, rankTo: 3, items: [{ itemUid: '7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d', quantity: 1 }] }] }, { token: admin }),
        'rewards',
      );
    });
  });

  describe('records', () => {
    it('rank by score, then subscore, then who reached it first; negative and 64-bit scores included', async () => {
      const created = await board();
      const [a, b, c, d] = await players(4);
      expect((await submit(created.uid, a, { score: 10, subscore: 1 })).body).toMatchObject({ rank: 1, score: 10, subscore: 1, numScore: 1, rankCount: 1 });
      await submit(created.uid, b, { score: 10, subscore: 1 });
      await submit(created.uid, c, { score: '9223372036854775807' });
      await submit(created.uid, d, { score: -5 });
      const page = await api.found<any[]>(`/leaderboards/${created.uid}/records`, a.token);
      expect(page.map((record) => [record.personaUid, record.rank, record.score])).toEqual([
        [c.personaUid, 1, '9223372036854775807'],
        [a.personaUid, 2, 10],
        [b.personaUid, 3, 10],
        [d.personaUid, 4, -5],
      ]);
      expect(page.every((record) => record.rankCount === 4)).toBe(true);
      expect(page[1]).toMatchObject({ personaName: expect.any(String), leaderboardUid: created.uid, periodUid: expect.any(String) });
    });

    it('apply every operator as the pure rules say', async () => {
      const cases: Array<[Operator, SortOrder, Operator, SortOrder]> = [
        ['BEST', 'DESC', 'BEST', 'DESC'],
        ['BEST', 'ASC', 'BEST', 'DESC'],
        ['SET', 'DESC', 'INCREMENT', 'ASC'],
        ['INCREMENT', 'DESC', 'BEST', 'ASC'],
        ['DECREMENT', 'ASC', 'DECREMENT', 'DESC'],
        ['BEST', 'DESC', 'INCREMENT', 'DESC'],
      ];
      const submissions = [
        [5n, 3n],
        [7n, -2n],
        [7n, 9n],
        [-4n, 1n],
        [7n, 9n],
      ];
      for (const [operator, sortOrder, subscoreOperator, subscoreSortOrder] of cases) {
        const created = await board({ operator, sortOrder, subscoreOperator, subscoreSortOrder });
        const [player] = await players(1);
        let expected: { score: bigint; subscore: bigint } | undefined;
        for (const [score, subscore] of submissions) {
          expected = applySubmission({ operator, sortOrder, subscoreOperator, subscoreSortOrder }, expected, { score, subscore });
          const answer = await submit(created.uid, player, { score: Number(score), subscore: Number(subscore) });
          expect({ operator, score: answer.body.score, subscore: answer.body.subscore }).toEqual({
            operator,
            score: Number(expected.score),
            subscore: Number(expected.subscore),
          });
        }
      }
    });

    it('refuse bad scores with a 400 that changes nothing', async () => {
      const created = await board({ minScore: -100, maxScore: 100 });
      const [player] = await players(1);
      const before = await api.countRows('leaderboard_records');
      for (const score of [1.5, 'NaN', '1e3', 2 ** 53, '99999999999999999999', null, true, {}]) {
        expectValidationError(await submit(created.uid, player, { score }), 'score');
      }
      expectValidationError(await submit(created.uid, player, { score: 101 }), 'score');
      expectValidationError(await submit(created.uid, player, { score: 1, subscore: 0.5 }), 'subscore');
      expectValidationError(await submit(created.uid, player, { score: 1, extra: 1 }), 'extra');
      expect(await api.countRows('leaderboard_records')).toBe(before);
      const incrementing = await board({ operator: 'INCREMENT' });
      await submit(incrementing.uid, player, { score: '9223372036854775807' });
      expectValidationError(await submit(incrementing.uid, player, { score: 1 }), 'score');
      expect((await api.found<any[]>(`/leaderboards/${incrementing.uid}/records/me`, player.token))[0]).toMatchObject({ score: '9223372036854775807', numScore: 1 });
    });

    it('answer 404 for an unknown board, 403 for a persona that is not yours and on authoritative boards', async () => {
      const [player, other] = await players(2);
      expectErrorBody(await submit('7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d', player, { score: 1 }), 404, 'NOT_FOUND');
      expectValidationError(await submit('not-a-uuid', player, { score: 1 }), 'id');
      const open = await board();
      expectErrorBody(await submit(open.uid, player, { score: 1, personaUid: other.personaUid }), 403, 'FORBIDDEN');
      const authoritative = await board({ authoritative: true });
      expectErrorBody(await submit(authoritative.uid, player, { score: 1 }), 403, 'FORBIDDEN');
      expect((await api.post<any>(`/leaderboards/${authoritative.uid}/records`, { score: 7, personaUid: player.personaUid }, { token: admin })).body).toMatchObject({
        personaUid: player.personaUid,
        score: 7,
        rank: 1,
      });
    });

    it('sum 100 concurrent INCREMENTs exactly', async () => {
      const created = await board({ operator: 'INCREMENT' });
      const [player] = await players(1);
      const answers = await Promise.all(Array.from({ length: 100 }, () => submit(created.uid, player, { score: 3 })));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      const [mine] = await api.found<any[]>(`/leaderboards/${created.uid}/records/me`, player.token);
      expect(mine).toMatchObject({ score: 300, numScore: 100, rank: 1 });
    });
  });

  describe('reads', () => {
    let created: any;
    let ranked: Player[];
    beforeAll(async () => {
      created = await board();
      ranked = await players(30);
      // Scores 300, 290, ..., 10: ranked[i] holds rank i + 1.
      for (const [index, player] of ranked.entries()) await submit(created.uid, player, { score: 300 - index * 10 });
    });

    it('page with a cursor, around a persona, for a friends list and for me', async () => {
      const first = await api.get<any[]>(`/leaderboards/${created.uid}/records?limit=10`, { token: ranked[0].token });
      expect(first.body.map((record) => record.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const cursor = first.headers['x-next-cursor'] as string;
      const second = await api.get<any[]>(`/leaderboards/${created.uid}/records?limit=10&cursor=${cursor}`, { token: ranked[0].token });
      expect(second.body.map((record) => record.personaUid)).toEqual(ranked.slice(10, 20).map((player) => player.personaUid));
      const around = await api.found<any[]>(`/leaderboards/${created.uid}/records/around/${ranked[15].personaUid}?limit=5`, ranked[0].token);
      expect(around.map((record) => record.rank)).toEqual([14, 15, 16, 17, 18]);
      const edge = await api.found<any[]>(`/leaderboards/${created.uid}/records/around/${ranked[0].personaUid}?limit=3`, ranked[0].token);
      expect(edge.map((record) => record.rank)).toEqual([1, 2, 3]);
      const friends = await api.found<any[]>(`/leaderboards/${created.uid}/records?personaUids=${ranked[20].personaUid},${ranked[3].personaUid}`, ranked[0].token);
      expect(friends.map((record) => record.rank)).toEqual([4, 21]);
      const me = await api.found<any[]>(`/leaderboards/${created.uid}/records/me`, ranked[7].token);
      expect(me).toEqual([expect.objectContaining({ rank: 8, score: 230, rankCount: 30 })]);
    });

    it('keeps a cursor stable while scores change: no record skipped or repeated', async () => {
      const first = await api.get<any[]>(`/leaderboards/${created.uid}/records?limit=10`, { token: ranked[0].token });
      // Meanwhile players of the next pages overtake everybody, and one of the first page falls behind.
      await submit(created.uid, ranked[25], { score: 1000 });
      await submit(created.uid, ranked[15], { score: 999 });
      const set = await board({ operator: 'SET' });
      expect(set.uid).toBeDefined();
      const seen = [...first.body];
      let cursor = first.headers['x-next-cursor'] as string | undefined;
      while (cursor) {
        const next = await api.get<any[]>(`/leaderboards/${created.uid}/records?limit=10&cursor=${cursor}`, { token: ranked[0].token });
        seen.push(...next.body);
        cursor = next.headers['x-next-cursor'] as string | undefined;
      }
      expect(seen.map((record) => record.rank)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
      expect(new Set(seen.map((record) => record.personaUid)).size).toBe(30);
      expect(seen[25]).toMatchObject({ personaUid: ranked[25].personaUid, score: 50 });
      // A new first page sees the new order.
      const fresh = await api.found<any[]>(`/leaderboards/${created.uid}/records?limit=2`, ranked[0].token);
      expect(fresh.map((record) => record.personaUid)).toEqual([ranked[25].personaUid, ranked[15].personaUid]);
    });

    it('refuse bad read parameters', async () => {
      for (const query of ['limit=0', 'limit=101', 'limit=x', 'period=last', 'cursor=%21', 'personaUids=nope', 'sort=rank']) {
        expectErrorBody(await api.get(`/leaderboards/${created.uid}/records?${query}`, { token: ranked[0].token }), 400, 'VALIDATION_FAILED');
      }
      expectErrorBody(await api.get(`/leaderboards/${created.uid}/records/around/${ranked[0].uid}`, { token: ranked[0].token }), 404, 'NOT_FOUND');
      expectErrorBody(await api.get('/leaderboards/7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d/records', { token: ranked[0].token }), 404, 'NOT_FOUND');
    });
  });

  it('the worker is there for tests to run', () => {
    expect(api.app.get(LeaderboardWorker)).toBeDefined();
  });
});
