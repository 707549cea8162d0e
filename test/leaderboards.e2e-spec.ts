import { LeaderboardWorker } from '../src/leaderboards/worker/leaderboard-worker.js';
import { applySubmission, type Operator, type SortOrder } from '../src/leaderboards/rules/operators.js';
import { LeaderboardRecordsRepository } from '../src/leaderboards/leaderboard-records.repository.js';
import { standingBeforeWrite } from '../src/leaderboards/ranks/rank-index.js';
import { FailoverRankIndex } from '../src/leaderboards/ranks/failover-rank-index.js';
import { expectErrorBody, expectValidationError } from './support/expectations.js';
import { prizeTiers } from './support/leaderboards.js';
import { RedisServer } from './support/redis-server.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

type Player = SignedInPlayer & { personaUid: string };

// Every rule, once with the in-process rank structure and once with Redis sorted sets (REDIS_URL).
describe.each(['in-process', 'redis'] as const)('leaderboards (ranks %s)', (structure) => {
  let api: TestApp;
  let admin: string;
  let redis: RedisServer | undefined;

  beforeAll(async () => {
    if (structure === 'redis') redis = await RedisServer.start();
    api = await TestApp.start(redis ? { REDIS_URL: redis.url } : {});
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    await api?.close();
    await redis?.stop();
  });

  it(`answers ranks from the ${structure} structure`, () => {
    expect(api.app.get(FailoverRankIndex).current).toBe(structure);
  });

  const board = (body: Record<string, unknown> = {}) =>
    api.created<any>('/leaderboards', { name: `Board ${Math.random()}`, ...body }, admin);
  const submit = (boardUid: string, player: { token: string }, body: Record<string, unknown>) =>
    api.post<any>(`/leaderboards/${boardUid}/records`, body, { token: player.token });
  const players = (count: number): Promise<Player[]> =>
    Promise.all(Array.from({ length: count }, () => api.newPlayerWithPersona('ranked')));

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
      const refused = await api.put<any>(
        `/leaderboards/${created.uid}`,
        { sortOrder: 'ASC', operator: 'SET', name: 'Renamed' },
        { token: admin },
      );
      expectErrorBody(refused, 409, 'IMMUTABLE_SETTING');
      expect(refused.body.errors.map((error: any) => error.field).sort()).toEqual(['operator', 'sortOrder']);
      expect(refused.body.message).toMatch(/sortOrder, operator/);
      // The record as read, sent back whole, changes nothing it may not.
      const same = await api.put<any>(
        `/leaderboards/${created.uid}`,
        { ...created, name: 'Renamed' },
        { token: admin, headers: { 'if-match': '"0"' } },
      );
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ name: 'Renamed', version: 1 });
      expectErrorBody(
        await api.put(`/leaderboards/${created.uid}`, { name: 'Again' }, { token: admin, headers: { 'if-match': '"0"' } }),
        409,
        'VERSION_CONFLICT',
      );
    });

    it('refuse bad settings with a 400 naming the field', async () => {
      expectValidationError(
        await api.post('/leaderboards', { name: 'x', resetSchedule: 'every monday' }, { token: admin }),
        'resetSchedule',
      );
      expectValidationError(await api.post('/leaderboards', { name: 'x', minScore: 5, maxScore: 4 }, { token: admin }), 'maxScore');
      expectValidationError(await api.post('/leaderboards', { name: 'x', maxScore: 2 ** 60 }, { token: admin }), 'maxScore');
      expectValidationError(await api.post('/leaderboards', { name: 'x', sortOrder: 'UP' }, { token: admin }), 'sortOrder');
      expectValidationError(
        await api.post(
          '/leaderboards',
          { name: 'x', rewards: [{ rankFrom: 1, rankTo: 3, items: [{ itemUid: '7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d', quantity: 1 }] }] },
          { token: admin },
        ),
        'rewards',
      );
    });
  });

  describe('records', () => {
    it("count a write's standing in PostgreSQL as the rank structure sees it, for writes made while no structure is ready", async () => {
      const created = await board({ rankLostTop: 2 });
      const ranked = await players(5);
      for (const [index, player] of ranked.entries()) await submit(created.uid, player, { score: 10 * (index % 3), subscore: index });
      const rows = await api.app.get(LeaderboardRecordsRepository).ofPersonas(
        (await api.found<any[]>(`/leaderboards/${created.uid}/records`, admin))[0].periodUid,
        ranked.map((player) => player.personaUid),
      );
      const structure = api.app.get(FailoverRankIndex);
      const repository = api.app.get(LeaderboardRecordsRepository);
      await structure.catchUp();
      for (const row of rows) {
        // A write that kept its key, and one whose new key ranks first (before any other).
        for (const key of [row.rankKey!, '0'.repeat(48) + row.personaUid.replaceAll('-', '')]) {
          const counted = await repository.transaction((db) => repository.others(db, row.periodUid, row.personaUid, key, row.rankKey, 2));
          expect(standingBeforeWrite(counted, key, row.rankKey, 2)).toEqual(await structure.standing(row.periodUid, key, row.rankKey, 2));
        }
      }
    });

    it('rank by score, then subscore, then who reached it first; negative and 64-bit scores included', async () => {
      const created = await board();
      const [a, b, c, d] = await players(4);
      expect((await submit(created.uid, a, { score: 10, subscore: 1 })).body).toMatchObject({
        rank: 1,
        score: 10,
        subscore: 1,
        numScore: 1,
        rankCount: 1,
      });
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
      expect((await api.found<any[]>(`/leaderboards/${incrementing.uid}/records/me`, player.token))[0]).toMatchObject({
        score: '9223372036854775807',
        numScore: 1,
      });
    });

    it('answer 404 for an unknown board, 403 for a persona that is not yours and on authoritative boards', async () => {
      const [player, other] = await players(2);
      expectErrorBody(await submit('7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d', player, { score: 1 }), 404, 'NOT_FOUND');
      expectValidationError(await submit('not-a-uuid', player, { score: 1 }), 'id');
      const open = await board();
      expectErrorBody(await submit(open.uid, player, { score: 1, personaUid: other.personaUid }), 403, 'FORBIDDEN');
      const authoritative = await board({ authoritative: true });
      expectErrorBody(await submit(authoritative.uid, player, { score: 1 }), 403, 'FORBIDDEN');
      expect(
        (await api.post<any>(`/leaderboards/${authoritative.uid}/records`, { score: 7, personaUid: player.personaUid }, { token: admin }))
          .body,
      ).toMatchObject({
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
      // The last page, full as it is, leads nowhere.
      const third = await api.get<any[]>(
        `/leaderboards/${created.uid}/records?limit=10&cursor=${second.headers['x-next-cursor'] as string}`,
        {
          token: ranked[0].token,
        },
      );
      expect(third.body.map((record) => record.rank)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
      expect(third.headers['x-next-cursor']).toBeUndefined();
      const around = await api.found<any[]>(
        `/leaderboards/${created.uid}/records/around/${ranked[15].personaUid}?limit=5`,
        ranked[0].token,
      );
      expect(around.map((record) => record.rank)).toEqual([14, 15, 16, 17, 18]);
      const edge = await api.found<any[]>(`/leaderboards/${created.uid}/records/around/${ranked[0].personaUid}?limit=3`, ranked[0].token);
      expect(edge.map((record) => record.rank)).toEqual([1, 2, 3]);
      const friends = await api.found<any[]>(
        `/leaderboards/${created.uid}/records?personaUids=${ranked[20].personaUid},${ranked[3].personaUid}`,
        ranked[0].token,
      );
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
        expectErrorBody(
          await api.get(`/leaderboards/${created.uid}/records?${query}`, { token: ranked[0].token }),
          400,
          'VALIDATION_FAILED',
        );
      }
      expectErrorBody(
        await api.get(`/leaderboards/${created.uid}/records/around/${ranked[0].uid}`, { token: ranked[0].token }),
        404,
        'NOT_FOUND',
      );
      expectErrorBody(
        await api.get('/leaderboards/7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d/records', { token: ranked[0].token }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('periods and tournaments', () => {
    const sleepUntil = async (time: number) => {
      while (Date.now() < time) await new Promise((resolve) => setTimeout(resolve, Math.max(10, time - Date.now())));
    };
    const worker = () => api.app.get(LeaderboardWorker);
    const events = async (player: { token: string }, type: string) =>
      (await api.found<any[]>('/notifications?limit=1000', player.token)).filter((event) => event.type === type).map((event) => event.data);

    it('begin a new period at each reset; the earlier one stays readable with final ranks', async () => {
      const created = await board({ resetSchedule: '*/2 * * * * *', startAt: new Date(Date.now() - 60_000).toISOString() });
      const [a, b] = await players(2);
      const first = (await submit(created.uid, a, { score: 5 })).body;
      await submit(created.uid, b, { score: 7 });
      await sleepUntil(
        Date.parse((await api.found<any>(`/leaderboards/${created.uid}/periods?uid=${first.periodUid}`, admin))[0].endsAt) + 50,
      );
      const second = (await submit(created.uid, a, { score: 1 })).body;
      expect(second.periodUid).not.toBe(first.periodUid);
      expect(second).toMatchObject({ rank: 1, rankCount: 1, numScore: 1 });
      expect((await worker().runOnce()).closed).toBeGreaterThanOrEqual(1);
      const previous = await api.found<any[]>(`/leaderboards/${created.uid}/records?period=previous`, a.token);
      expect(previous.map((record) => [record.personaUid, record.rank, record.score])).toEqual([
        [b.personaUid, 1, 7],
        [a.personaUid, 2, 5],
      ]);
      expect(await api.found<any[]>(`/leaderboards/${created.uid}/records/me?period=${first.periodUid}`, a.token)).toEqual([
        expect.objectContaining({ rank: 2, rankCount: 2 }),
      ]);
      const periods = await api.found<any[]>(`/leaderboards/${created.uid}/periods?sort={"startsAt":"ASC"}`, a.token);
      expect(periods.map((period) => period.status)).toEqual(['CLOSED', 'OPEN']);
      expect(periods[0]).toMatchObject({ rankCount: 2, closedAt: expect.any(String) });
      expect(await events(b, 'leaderboard.period_ended')).toEqual([
        expect.objectContaining({
          leaderboardUid: created.uid,
          periodUid: first.periodUid,
          personaUid: b.personaUid,
          rank: 1,
          score: 7,
          rankCount: 2,
          rewards: null,
        }),
      ]);
    });

    it('take scores only while open: before the start and after the end is 409 NOT_ACTIVE', async () => {
      const [player] = await players(1);
      const later = await board({ startAt: new Date(Date.now() + 3_600_000).toISOString() });
      expectErrorBody(await submit(later.uid, player, { score: 1 }), 409, 'NOT_ACTIVE');
      const over = await board({ startAt: new Date(Date.now() - 7_200_000).toISOString(), duration: 60 });
      expectErrorBody(await submit(over.uid, player, { score: 1 }), 409, 'NOT_ACTIVE');
    });

    it('need a join where joinRequired (idempotent), count attempts, and refuse the seat past maxSize', async () => {
      const [a, b, c] = await players(3);
      const joined = await board({ joinRequired: true, maxSize: 2, maxNumScore: 2 });
      expectErrorBody(await submit(joined.uid, a, { score: 1 }), 409, 'NOT_JOINED');
      const join = await api.post<any>(`/leaderboards/${joined.uid}/join`, undefined, { token: a.token });
      expect(join.status).toBe(200);
      expect(join.body).toMatchObject({ personaUid: a.personaUid, rank: null, score: null, numScore: 0, maxNumScore: 2 });
      expect((await api.post<any>(`/leaderboards/${joined.uid}/join`, {}, { token: a.token })).body.uid).toBe(join.body.uid);
      await api.post(`/leaderboards/${joined.uid}/join`, { personaUid: b.personaUid }, { token: b.token });
      expectErrorBody(await api.post(`/leaderboards/${joined.uid}/join`, {}, { token: c.token }), 409, 'LEADERBOARD_FULL');
      expect((await submit(joined.uid, a, { score: 3 })).body).toMatchObject({ rank: 1, numScore: 1 });
      await submit(joined.uid, a, { score: 4 });
      expectErrorBody(await submit(joined.uid, a, { score: 5 }), 409, 'NO_ATTEMPTS_LEFT');
      // A board with maxSize seats on the first score; of many racing for the last seats, exactly maxSize get one.
      const small = await board({ maxSize: 3 });
      const racers = await players(8);
      const answers = await Promise.all(racers.map((racer) => submit(small.uid, racer, { score: 1 })));
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
      expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.code === 'LEADERBOARD_FULL')).toBe(true);
    });

    it('count seats, attempts and prizes per user where the entrant is USER (the default with prizes or seats), per persona where PERSONA', async () => {
      const gold = (await api.created<any>('/items', { name: 'Gold' }, admin)).uid;
      const gem = (await api.created<any>('/items', { name: 'Gem' }, admin)).uid;
      const collector = await api.newPlayerWithPersona('collector');
      const alts = [collector.personaUid];
      for (const name of ['Alt one', 'Alt two']) alts.push((await api.created<any>('/personas', { name }, collector.token)).uid);
      const [honestA, honestB, honestC] = await players(3);
      const perUser = await board({ maxSize: 3, maxNumScore: 2, rewards: prizeTiers(gold, gem) });
      const perPersona = await board({ maxSize: 3, maxNumScore: 2, rewards: prizeTiers(gold, gem), entrant: 'PERSONA' });
      expect([perUser.entrant, perPersona.entrant]).toEqual(['USER', 'PERSONA']);

      // USER: the first persona enters for its user; the user's others are refused and take neither a seat nor attempts.
      expect((await submit(perUser.uid, collector, { score: 100, personaUid: alts[0] })).status).toBe(200);
      for (const alt of alts.slice(1)) {
        expectErrorBody(await submit(perUser.uid, collector, { score: 999, personaUid: alt }), 409, 'ALREADY_ENTERED');
        expectErrorBody(
          await api.post(`/leaderboards/${perUser.uid}/join`, { personaUid: alt }, { token: collector.token }),
          409,
          'ALREADY_ENTERED',
        );
      }
      expect((await submit(perUser.uid, collector, { score: 101, personaUid: alts[0] })).body).toMatchObject({ numScore: 2, rank: 1 });
      expectErrorBody(await submit(perUser.uid, collector, { score: 102, personaUid: alts[0] }), 409, 'NO_ATTEMPTS_LEFT');
      for (const [index, honest] of [honestA, honestB].entries()) {
        expect((await submit(perUser.uid, honest, { score: 50 - index })).status).toBe(200);
      }
      expectErrorBody(await submit(perUser.uid, honestC, { score: 1 }), 409, 'LEADERBOARD_FULL');
      expect(
        (await api.found<any[]>(`/leaderboards/${perUser.uid}/records/me`, collector.token)).map((record) => record.personaUid),
      ).toEqual([alts[0]]);

      // PERSONA: the same player's three personas fill the board, and an honest player finds it full.
      for (const [index, alt] of alts.entries()) {
        expect((await submit(perPersona.uid, collector, { score: 100 - index, personaUid: alt })).status).toBe(200);
      }
      expectErrorBody(await submit(perPersona.uid, honestA, { score: 500 }), 409, 'LEADERBOARD_FULL');

      // Both end now (an admin's reset) and the worker closes them and pays their prizes.
      for (const ended of [perUser, perPersona]) {
        expect((await api.post(`/leaderboards/${ended.uid}/reset`, undefined, { token: admin })).status).toBe(200);
      }
      await worker().runOnce();
      const prizes = async (boardUid: string) => {
        const [closed] = await api.found<any[]>(`/leaderboards/${boardUid}/periods?status=CLOSED`, admin);
        const paid = await api.found<any[]>(`/leaderboards/${boardUid}/periods/${closed.uid}/payouts`, admin);
        return paid.map((prize) => [prize.rank, prize.personaUid, prize.status]);
      };
      expect(await prizes(perUser.uid)).toEqual([
        [1, alts[0], 'PAID'],
        [2, honestA.personaUid, 'PAID'],
        [3, honestB.personaUid, 'PAID'],
      ]);
      expect(await prizes(perPersona.uid)).toEqual(alts.map((alt, index) => [index + 1, alt, 'PAID']));
    });

    it("let one of a user's personas enter a USER board when several race, and keep the setting fixed", async () => {
      const racer = await api.newPlayerWithPersona('racer');
      const personas = [racer.personaUid];
      for (let made = 1; made < 4; made++) personas.push((await api.created<any>('/personas', { name: `Racer ${made}` }, racer.token)).uid);
      for (const settings of [{ entrant: 'USER' }, { entrant: 'USER', joinRequired: true }]) {
        const open = await board(settings);
        const answers = await Promise.all(
          personas.map((personaUid) =>
            settings.joinRequired
              ? api.post(`/leaderboards/${open.uid}/join`, { personaUid }, { token: racer.token })
              : submit(open.uid, racer, { score: 5, personaUid }),
          ),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
        for (const refused of answers.filter((answer) => answer.status === 409)) expectErrorBody(refused, 409, 'ALREADY_ENTERED');
        const { rows } = await api.database.query('SELECT count(*)::int AS n FROM leaderboard_records WHERE "leaderboardUid" = $1', [
          open.uid,
        ]);
        expect(rows[0].n).toBe(1);
      }
      expect((await board({})).entrant).toBe('PERSONA');
      const seated = await board({ maxSize: 5 });
      expect(seated.entrant).toBe('USER');
      const refused = await api.put<any>(`/leaderboards/${seated.uid}`, { entrant: 'PERSONA' }, { token: admin });
      expectErrorBody(refused, 409, 'IMMUTABLE_SETTING');
      expect(refused.body.errors).toEqual([{ field: 'entrant', message: 'fixed at creation' }]);
      expect((await api.put<any>(`/leaderboards/${seated.uid}`, { entrant: 'USER', name: 'Same entrant' }, { token: admin })).status).toBe(
        200,
      );
    });

    it('pay the prizes of a closed tournament once, as AWARD transactions, even when run twice at once or after a lost mark', async () => {
      const gold = (await api.created<any>('/items', { name: 'Gold' }, admin)).uid;
      const gem = (await api.created<any>('/items', { name: 'Gem' }, admin)).uid;
      const endsAt = Date.now() + 2500;
      const tournament = await board({
        startAt: new Date(Date.now() - 1000).toISOString(),
        endAt: new Date(endsAt).toISOString(),
        rewards: prizeTiers(gold, gem),
      });
      const entrants = await players(5);
      for (const [index, entrant] of entrants.entries()) await submit(tournament.uid, entrant, { score: 50 - index });
      await sleepUntil(endsAt + 50);
      expectErrorBody(await submit(tournament.uid, entrants[4], { score: 999 }), 409, 'NOT_ACTIVE');
      const rounds = await Promise.all([worker().runOnce(), worker().runOnce()]);
      expect(rounds.reduce((sum, round) => sum + round.closed, 0)).toBeGreaterThanOrEqual(1);
      expect((await api.found<any[]>(`/leaderboards/${tournament.uid}/periods`, admin)).map((period) => period.status)).toEqual(['CLOSED']);
      expect(rounds.reduce((sum, round) => sum + round.paid, 0)).toBe(3);
      // As if an instance died between the award and its mark: the prize is PENDING again, its award done.
      await api.database.query(`UPDATE leaderboard_payouts SET status = 'PENDING', "transactionUid" = NULL WHERE "personaUid" = $1`, [
        entrants[0].personaUid,
      ]);
      expect((await worker().runOnce()).paid).toBe(1);
      const holdings = async (player: Player) =>
        Object.fromEntries((await api.found<any[]>('/inventories', player.token)).map((row) => [row.itemUid, row.quantity]));
      expect(await holdings(entrants[0])).toEqual({ [gold]: 100, [gem]: 1 });
      expect(await holdings(entrants[1])).toEqual({ [gold]: 10 });
      expect(await holdings(entrants[2])).toEqual({ [gold]: 10 });
      expect(await holdings(entrants[3])).toEqual({});
      const { rows } = await api.database.query(
        `SELECT count(*)::int AS n FROM transactions WHERE type = 'AWARD' AND "idempotencyKey" LIKE 'leaderboard-prize:%' AND "personaOneUid" = ANY($1)`,
        [entrants.map((entrant) => entrant.personaUid)],
      );
      expect(rows[0].n).toBe(3);
      expect(await events(entrants[0], 'leaderboard.period_ended')).toEqual([
        expect.objectContaining({
          rank: 1,
          rankCount: 5,
          rewards: [
            { itemUid: gold, quantity: 100 },
            { itemUid: gem, quantity: 1 },
          ],
        }),
      ]);
      expect(await events(entrants[0], 'inventory.updated')).toHaveLength(1);
      expect(await events(entrants[4], 'leaderboard.period_ended')).toEqual([expect.objectContaining({ rank: 5, rewards: null })]);
    });
  });

  describe('realtime and moderation', () => {
    const events = async (player: { token: string }, type: string) =>
      (await api.found<any[]>('/notifications?limit=1000', player.token)).filter((event) => event.type === type).map((event) => event.data);

    it('tell the owner of each new score, and a player pushed out of the top places', async () => {
      const created = await board({ rankLostTop: 2 });
      const [a, b, c] = await players(3);
      await submit(created.uid, a, { score: 100 });
      await submit(created.uid, b, { score: 90 });
      await submit(created.uid, c, { score: 95 });
      expect(await events(c, 'leaderboard.record_updated')).toEqual([
        {
          leaderboardUid: created.uid,
          periodUid: expect.any(String),
          personaUid: c.personaUid,
          score: 95,
          subscore: 0,
          numScore: 1,
          rank: 2,
          rankCount: 3,
        },
      ]);
      expect(await events(b, 'leaderboard.rank_lost')).toEqual([
        { leaderboardUid: created.uid, periodUid: expect.any(String), personaUid: b.personaUid, rank: 3, byPersonaUid: c.personaUid },
      ]);
      expect(await events(a, 'leaderboard.rank_lost')).toEqual([]);
      expect(await events(b, 'leaderboard.record_updated')).toHaveLength(1);
    });

    it("let admins delete a record or all of a persona's, with an audit entry; hide banned players while banned", async () => {
      const created = await board();
      const [a, b, c] = await players(3);
      await submit(created.uid, a, { score: 30 });
      await submit(created.uid, b, { score: 20 });
      await submit(created.uid, c, { score: 10 });
      expectErrorBody(await api.delete(`/leaderboards/${created.uid}/records/${a.personaUid}`, { token: b.token }), 403, 'FORBIDDEN');
      expect((await api.delete(`/leaderboards/${created.uid}/records/${a.personaUid}`, { token: admin })).status).toBe(204);
      expectErrorBody(await api.delete(`/leaderboards/${created.uid}/records/${a.personaUid}`, { token: admin }), 404, 'NOT_FOUND');
      const ranks = async () =>
        (await api.found<any[]>(`/leaderboards/${created.uid}/records`, c.token)).map((record) => [record.personaUid, record.rank]);
      expect(await ranks()).toEqual([
        [b.personaUid, 1],
        [c.personaUid, 2],
      ]);
      const audit = await api.found<any[]>(`/users/${a.uid}/audit`, admin);
      expect(audit[0]).toMatchObject({
        event: 'leaderboard-records-deleted',
        detail: expect.objectContaining({ personaUid: a.personaUid }),
      });

      expect((await api.post(`/users/${b.uid}/ban`, { reason: 'cheating' }, { token: admin })).status).toBe(200);
      expect(await ranks()).toEqual([[c.personaUid, 1]]);
      expectErrorBody(await api.get(`/leaderboards/${created.uid}/records/around/${b.personaUid}`, { token: c.token }), 404, 'NOT_FOUND');
      expect((await api.post(`/users/${b.uid}/unban`, undefined, { token: admin })).status).toBe(200);
      expect(await ranks()).toEqual([
        [b.personaUid, 1],
        [c.personaUid, 2],
      ]);
      expect((await api.delete(`/personas/${b.personaUid}/leaderboard-records`, { token: admin })).status).toBe(204);
      expect(await ranks()).toEqual([[c.personaUid, 1]]);
    });
  });
});
