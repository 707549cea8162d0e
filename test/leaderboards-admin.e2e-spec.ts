import { LeaderboardWorker } from '../src/leaderboards/worker/leaderboard-worker.js';
import { expectErrorBody, expectValidationError } from './support/expectations.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';
import { prizeTiers } from './support/leaderboards.js';

type Player = SignedInPlayer & { personaUid: string };

/**
 * What the LiveOps console asks of the leaderboards beyond a player's routes: an admin's reset of a
 * board, the prizes a closed period paid, and a persona's records across boards. The worker runs when a
 * test says so, with no close delay, so that a reset's period closes at the test's call.
 */
describe('leaderboards for admins', () => {
  let api: TestApp;
  let admin: string;

  beforeAll(async () => {
    api = await TestApp.start({ LEADERBOARD_WORKER_ENABLED: 'false', LEADERBOARD_CLOSE_DELAY: '0' });
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    await api?.close();
  });

  const worker = () => api.app.get(LeaderboardWorker);
  const board = (body: Record<string, unknown> = {}) =>
    api.created<any>('/leaderboards', { name: `Board ${Math.random()}`, ...body }, admin);
  const submit = (boardUid: string, player: { token: string }, score: number) =>
    api.post<any>(`/leaderboards/${boardUid}/records`, { score }, { token: player.token });
  const players = (count: number): Promise<Player[]> =>
    Promise.all(Array.from({ length: count }, () => api.newPlayerWithPersona('ranked')));
  const reset = (boardUid: string, version?: number, token = admin) =>
    api.post<any>(`/leaderboards/${boardUid}/reset`, undefined, {
      token,
      headers: version === undefined ? {} : { 'if-match': `"${version}"` },
    });
  const periods = (boardUid: string) => api.found<any[]>(`/leaderboards/${boardUid}/periods?sort={"startsAt":"ASC"}`, admin);
  const events = async (player: { token: string }, type: string) =>
    (await api.found<any[]>('/notifications?limit=1000', player.token)).filter((event) => event.type === type).map((event) => event.data);
  const prizeBoard = async () => {
    const gold = (await api.created<any>('/items', { name: 'Gold' }, admin)).uid;
    const gem = (await api.created<any>('/items', { name: 'Gem' }, admin)).uid;
    const created = await board({ rewards: prizeTiers(gold, gem) });
    return { created, gold, gem };
  };

  describe('reset', () => {
    it('ends the period open now, which then closes as a scheduled one (final ranks, events, prizes), and starts players from zero', async () => {
      const { created, gold, gem } = await prizeBoard();
      const entrants = await players(4);
      for (const [index, entrant] of entrants.entries()) await submit(created.uid, entrant, 40 - index);
      const first = (await submit(created.uid, entrants[0], 41)).body.periodUid;

      const answer = await reset(created.uid, created.version);
      expect(answer.status).toBe(200);
      expect(answer.headers.etag).toBe(`"${created.version + 1}"`);
      expect(answer.body).toMatchObject({ uid: created.uid, version: created.version + 1, resetAt: expect.any(String) });
      // The admin audit keeps the board as it was and as the reset left it.
      const [entry] = await api.found<any[]>(`/admin/audit?targetUid=${created.uid}&action=reset`, admin);
      expect((await api.found<any>(`/admin/audit/${entry.id}`, admin)).before).toMatchObject({
        uid: created.uid,
        version: created.version,
      });
      expect((await api.found<any>(`/admin/audit/${entry.id}`, admin)).after).toMatchObject({ version: created.version + 1 });
      // Players start from zero: the current period is empty, and a score is the first of a new one.
      expect(await api.found<any[]>(`/leaderboards/${created.uid}/records`, entrants[1].token)).toEqual([]);
      const again = (await submit(created.uid, entrants[3], 1)).body;
      expect(again).toMatchObject({ rank: 1, rankCount: 1, numScore: 1 });
      expect(again.periodUid).not.toBe(first);
      const ended = (await periods(created.uid)).find((period) => period.uid === first);
      expect(ended).toMatchObject({ status: 'OPEN', endsAt: answer.body.resetAt });

      expect((await worker().runOnce()).paid).toBe(3);
      expect((await periods(created.uid)).map((period) => [period.uid, period.status])).toEqual([
        [first, 'CLOSED'],
        [again.periodUid, 'OPEN'],
      ]);
      const previous = await api.found<any[]>(`/leaderboards/${created.uid}/records?period=previous`, admin);
      expect(previous.map((record) => [record.personaUid, record.rank, record.score])).toEqual(
        entrants.map((entrant, index) => [entrant.personaUid, index + 1, index === 0 ? 41 : 40 - index]),
      );
      expect(await events(entrants[0], 'leaderboard.period_ended')).toEqual([
        expect.objectContaining({
          periodUid: first,
          rank: 1,
          rankCount: 4,
          endsAt: answer.body.resetAt,
          rewards: [
            { itemUid: gold, quantity: 100 },
            { itemUid: gem, quantity: 1 },
          ],
        }),
      ]);

      // The prizes paid match the board's rewards, each with the AWARD that paid it, in the persona's ledger.
      const prizes = await api.found<any[]>(`/leaderboards/${created.uid}/periods/${first}/payouts`, admin);
      expect(prizes.map(({ personaUid, rank, items, status }) => ({ personaUid, rank, items, status }))).toEqual([
        {
          personaUid: entrants[0].personaUid,
          rank: 1,
          items: [
            { itemUid: gold, quantity: 100 },
            { itemUid: gem, quantity: 1 },
          ],
          status: 'PAID',
        },
        { personaUid: entrants[1].personaUid, rank: 2, items: [{ itemUid: gold, quantity: 10 }], status: 'PAID' },
        { personaUid: entrants[2].personaUid, rank: 3, items: [{ itemUid: gold, quantity: 10 }], status: 'PAID' },
      ]);
      expect(prizes[0]).toMatchObject({
        personaName: expect.stringMatching(/^ranked/),
        attempts: 1,
        error: null,
        datePaid: expect.any(String),
      });
      for (const [index, prize] of prizes.entries()) {
        const ledger = await api.found<any[]>(`/inventories/ledger?personaUid=${entrants[index].personaUid}`, entrants[index].token);
        expect(
          ledger.filter((entry) => entry.transactionUid === prize.transactionUid).map((entry) => [entry.itemUid, entry.delta]),
        ).toEqual(expect.arrayContaining(prize.items.map((item: any) => [item.itemUid, item.quantity])));
        expect(await api.found<any>(`/transactions/${prize.transactionUid}`, admin)).toMatchObject({ type: 'AWARD', status: 'COMPLETED' });
      }
      // Paged by skip, in rank order.
      const second = await api.found<any[]>(`/leaderboards/${created.uid}/periods/${first}/payouts?limit=1&skip=1`, admin);
      expect(second.map((prize) => prize.rank)).toEqual([2]);
      // The new period pays nothing yet.
      expect(await api.found<any[]>(`/leaderboards/${created.uid}/periods/${again.periodUid}/payouts`, admin)).toEqual([]);
    });

    it('of two at once closes the period once: with the version read, one resets and the other is told of the conflict', async () => {
      const { created } = await prizeBoard();
      const entrants = await players(3);
      for (const [index, entrant] of entrants.entries()) await submit(created.uid, entrant, 10 - index);
      const [one, two] = await Promise.all([reset(created.uid, created.version), reset(created.uid, created.version)]);
      expect([one.status, two.status].sort()).toEqual([200, 409]);
      expectErrorBody(one.status === 409 ? one : two, 409, 'VERSION_CONFLICT');
      expect((await periods(created.uid)).map((period) => period.status)).toEqual(['OPEN']);
      const rounds = await Promise.all([worker().runOnce(), worker().runOnce()]);
      expect(rounds.reduce((sum, round) => sum + round.paid, 0)).toBe(3);
      expect((await periods(created.uid)).map((period) => [period.status, period.rankCount])).toEqual([['CLOSED', 3]]);
      expect(await events(entrants[0], 'leaderboard.period_ended')).toHaveLength(1);
    });

    it('without a version, two at once each reset: the scored period ends once and pays once', async () => {
      const { created } = await prizeBoard();
      const entrants = await players(2);
      for (const [index, entrant] of entrants.entries()) await submit(created.uid, entrant, 10 - index);
      const answers = await Promise.all([reset(created.uid), reset(created.uid)]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(answers.map((answer) => answer.body.version).sort()).toEqual([created.version + 1, created.version + 2]);
      await worker().runOnce();
      const closed = await periods(created.uid);
      expect(closed.every((period) => period.status === 'CLOSED')).toBe(true);
      // The second reset ended the empty period the first began: nothing is ranked twice.
      expect(closed.map((period) => period.rankCount)).toEqual([2, 0]);
      const { rows } = await api.database.query(`SELECT count(*)::int AS n FROM leaderboard_payouts WHERE "leaderboardUid" = $1`, [
        created.uid,
      ]);
      expect(rows[0].n).toBe(2);
      expect(await events(entrants[1], 'leaderboard.period_ended')).toHaveLength(1);
    });

    it("on a schedule, begins a period that runs to the schedule's next time", async () => {
      const weekly = await board({ resetSchedule: '0 0 * * 1' });
      const [player] = await players(1);
      await submit(weekly.uid, player, 5);
      const answer = await reset(weekly.uid, weekly.version);
      expect(answer.status).toBe(200);
      const record = (await submit(weekly.uid, player, 3)).body;
      const current = (await periods(weekly.uid)).find((period) => period.uid === record.periodUid);
      expect(current.startsAt).toBe(answer.body.resetAt);
      expect(new Date(current.endsAt).getUTCDay()).toBe(1);
      expect(Date.parse(current.endsAt) - Date.parse(current.startsAt)).toBeLessThanOrEqual(7 * 86_400_000);
      // A board read and sent back whole, resetAt included, is still a valid update.
      const read = await api.found<any>(`/leaderboards/${weekly.uid}`, admin);
      expect(
        (await api.put<any>(`/leaderboards/${weekly.uid}`, { ...read, name: 'Weekly, renamed' }, { token: admin })).body,
      ).toMatchObject({
        resetAt: answer.body.resetAt,
        name: 'Weekly, renamed',
      });
    });

    it('refuses a board with no period now, a stale or malformed version, an unknown board and players, changing nothing', async () => {
      const later = await board({ startAt: new Date(Date.now() + 3_600_000).toISOString() });
      expectErrorBody(await reset(later.uid), 409, 'NOT_ACTIVE');
      const over = await board({
        startAt: new Date(Date.now() - 7_200_000).toISOString(),
        endAt: new Date(Date.now() - 3_600_000).toISOString(),
      });
      expectErrorBody(await reset(over.uid), 409, 'NOT_ACTIVE');
      const open = await board();
      expectErrorBody(await reset(open.uid, open.version + 3), 409, 'VERSION_CONFLICT');
      const malformed = await api.post(`/leaderboards/${open.uid}/reset`, undefined, { token: admin, headers: { 'if-match': 'soon' } });
      expect(malformed.status).toBe(400);
      expectErrorBody(await reset('00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
      expect((await api.post(`/leaderboards/not-a-uid/reset`, undefined, { token: admin })).status).toBe(400);
      const [player] = await players(1);
      expectErrorBody(await reset(open.uid, undefined, player.token), 403, 'FORBIDDEN');
      expect(await api.found<any>(`/leaderboards/${open.uid}`, admin)).toMatchObject({ version: open.version, resetAt: null });
      expect(await periods(open.uid)).toEqual([]);
    });
  });

  describe('prizes paid', () => {
    it('are read by admins only, for a period of the board, with a bounded page', async () => {
      const { created } = await prizeBoard();
      const [player] = await players(1);
      const { periodUid } = (await submit(created.uid, player, 1)).body;
      const other = await board();
      const [rival] = await players(1);
      const otherPeriod = (await submit(other.uid, rival, 1)).body.periodUid;
      const path = `/leaderboards/${created.uid}/periods/${periodUid}/payouts`;
      expectErrorBody(await api.get(path, { token: player.token }), 403, 'FORBIDDEN');
      expect(await api.found<any[]>(path, admin)).toEqual([]);
      expectValidationError(await api.get(`${path}?limit=0`, { token: admin }), 'limit');
      expectValidationError(await api.get(`${path}?limit=101`, { token: admin }), 'limit');
      expectValidationError(await api.get(`${path}?skip=-1`, { token: admin }), 'skip');
      expectValidationError(await api.get(`${path}?skip=100001`, { token: admin }), 'skip');
      expectValidationError(await api.get(`${path}?period=current`, { token: admin }), 'period');
      expectErrorBody(await api.get(`/leaderboards/${created.uid}/periods/${otherPeriod}/payouts`, { token: admin }), 404, 'NOT_FOUND');
      expectErrorBody(
        await api.get(`/leaderboards/${created.uid}/periods/00000000-0000-4000-8000-000000000000/payouts`, { token: admin }),
        404,
        'NOT_FOUND',
      );
      expectErrorBody(
        await api.get(`/leaderboards/00000000-0000-4000-8000-000000000000/periods/${periodUid}/payouts`, { token: admin }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe("a persona's records across boards", () => {
    it("lists the current period's record on every board, by board name, for its owner and admins, never another player", async () => {
      const [player, rival] = await players(2);
      const suffix = Math.random();
      const alpha = await board({ name: `Alpha ${suffix}` });
      const beta = await board({ name: `Beta ${suffix}`, sortOrder: 'ASC' });
      const gamma = await board({ name: `Gamma ${suffix}` });
      await submit(alpha.uid, rival, 50);
      await submit(alpha.uid, player, 20);
      await submit(beta.uid, player, 7);
      await submit(gamma.uid, player, 3);
      // Gamma's reset leaves the persona no record in its current period.
      await reset(gamma.uid);
      const path = `/personas/${player.personaUid}/leaderboard-records`;
      const mine = await api.get<any[]>(path, { token: player.token });
      expect(mine.status).toBe(200);
      expect(mine.body.map((record) => [record.leaderboardName, record.rank, record.rankCount, record.score, record.periodStatus])).toEqual(
        [
          [alpha.name, 2, 2, 20, 'OPEN'],
          [beta.name, 1, 1, 7, 'OPEN'],
        ],
      );
      expect(mine.body[0]).toMatchObject({
        leaderboardUid: alpha.uid,
        personaUid: player.personaUid,
        personaName: expect.stringMatching(/^ranked/),
      });
      expect((await api.get<any[]>(path, { token: admin })).body).toEqual(mine.body);
      expectErrorBody(await api.get(path, { token: rival.token }), 403, 'FORBIDDEN');
      expectErrorBody(
        await api.get('/personas/00000000-0000-4000-8000-000000000000/leaderboard-records', { token: admin }),
        404,
        'NOT_FOUND',
      );

      // Pages by skip: a page of boards may hold fewer records than limit, and X-Next-Skip leads on.
      const first = await api.get<any[]>(`${path}?limit=1`, { token: admin });
      expect(first.body.map((record) => record.leaderboardUid)).toEqual([alpha.uid]);
      expect(first.headers['x-next-skip']).toBe('1');
      const second = await api.get<any[]>(`${path}?limit=2&skip=1`, { token: admin });
      expect(second.body.map((record) => record.leaderboardUid)).toEqual([beta.uid]);
      expect(second.headers['x-next-skip']).toBe('3');
      const last = await api.get<any[]>(`${path}?limit=2&skip=3`, { token: admin });
      expect(last.body).toEqual([]);
      expect(last.headers['x-next-skip']).toBeUndefined();
      expectValidationError(await api.get(`${path}?limit=101`, { token: admin }), 'limit');
      expectValidationError(await api.get(`${path}?skip=x`, { token: admin }), 'skip');
      expectValidationError(await api.get(`${path}?cursor=abc`, { token: admin }), 'cursor');
    });

    it("shows an ended board's last period with its final rank", async () => {
      const endsAt = Date.now() + 1500;
      const tournament = await board({ startAt: new Date(Date.now() - 1000).toISOString(), endAt: new Date(endsAt).toISOString() });
      const [player, rival] = await players(2);
      await submit(tournament.uid, player, 5);
      await submit(tournament.uid, rival, 9);
      while (Date.now() < endsAt + 50) await new Promise((resolve) => setTimeout(resolve, 50));
      await worker().runOnce();
      const records = await api.found<any[]>(`/personas/${player.personaUid}/leaderboard-records`, player.token);
      expect(records.map((record) => [record.leaderboardUid, record.rank, record.rankCount, record.periodStatus])).toEqual([
        [tournament.uid, 2, 2, 'CLOSED'],
      ]);
    });
  });
});
