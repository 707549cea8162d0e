import { Redis } from 'ioredis';
import { FailoverRankIndex } from '../src/leaderboards/ranks/failover-rank-index.js';
import { RedisServer } from './support/redis-server.js';
import { TestApp } from './support/test-app.js';

// Two deployments (here: two databases, as staging beside production) whose instances share one Redis:
// each follows its own log of rank changes, whose numbers start at 1 in both.
describe('leaderboards of two databases sharing one Redis', () => {
  let redis: RedisServer;
  let apps: TestApp[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
    apps = [await TestApp.start({ REDIS_URL: redis.url }), await TestApp.start({ REDIS_URL: redis.url })];
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await redis?.stop();
  });

  it('rank each database its own records, in sets of its own', async () => {
    for (const app of apps) expect(app.app.get(FailoverRankIndex).current).toBe('redis');
    const boards: Array<{ app: TestApp; admin: string; board: string; personas: string[] }> = [];
    for (const [index, app] of apps.entries()) {
      const admin = await app.signIn('admin');
      const board = (await app.created<{ uid: string }>('/leaderboards', { name: `Shared ${index}` }, admin)).uid;
      const players = await Promise.all([0, 1, 2].map(() => app.newPlayerWithPersona('ranked')));
      // The second database writes fewer changes than the first: its log's numbers stay below the first's.
      for (const [rank, player] of players.slice(0, 3 - index).entries()) {
        expect((await app.post(`/leaderboards/${board}/records`, { score: 100 - rank }, { token: player.token })).status).toBe(200);
      }
      boards.push({ app, admin, board, personas: players.slice(0, 3 - index).map((player) => player.personaUid) });
    }
    for (const { app, admin, board, personas } of boards) {
      const page = await app.found<Array<{ personaUid: string; rank: number; rankCount: number }>>(`/leaderboards/${board}/records`, admin);
      expect(page.map(({ personaUid, rank, rankCount }) => ({ personaUid, rank, rankCount }))).toEqual(
        personas.map((personaUid, index) => ({ personaUid, rank: index + 1, rankCount: personas.length })),
      );
    }
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await client.connect();
      expect(await client.keys('leaderboard-ranks:*:state')).toHaveLength(2);
    } finally {
      client.disconnect();
    }
  });
});
