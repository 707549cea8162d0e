import { setTimeout as sleep } from 'node:timers/promises';
import type { ErrorResponse, PersonaBody } from './support/api-types.js';
import { expectErrorBody } from './support/expectations.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

/**
 * Load shedding (issue 47, finding 10): an instance works on at most HTTP_REQUESTS_IN_FLIGHT requests
 * at once; one more is answered 503 OVERLOADED with `Retry-After` before any of its work, and the place
 * is free again once a request has its answer. Here the bound is 1, and the request in flight waits on
 * a row lock the test holds, so that what is in flight is decided by the test, not by timing.
 */
describe('requests in flight', () => {
  let api: TestApp;
  let player: SignedInPlayer;
  const write = (key: string) =>
    api.put<ErrorResponse>('/storage', { objects: [{ collection: 'saves', key, value: { key } }] }, { token: player.token });
  const keys = async () =>
    (
      await api.database.query<{ key: string }>('SELECT key FROM storage_objects WHERE "ownerUid" = $1 ORDER BY key', [player.uid])
    ).rows.map((row) => row.key);

  beforeAll(async () => {
    api = await TestApp.start({ HTTP_REQUESTS_IN_FLIGHT: '1' });
    player = await api.newPlayer('shed');
  });

  afterAll(async () => {
    await api.close();
  });

  it('refuses one more request with 503 OVERLOADED and changes nothing, answers probes and /metrics meanwhile, and takes requests again after', async () => {
    expect((await write('first')).status).toBe(200);
    // A transaction of the test's holds the player's storage usage row, which every storage write locks first.
    const holder = await api.database.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM storage_usage WHERE "ownerUid" = $1 FOR UPDATE', [player.uid]);
      const inFlight = write('second');
      await untilSomeoneWaitsForALock(api);

      const refusedRead = await api.get<ErrorResponse>('/personas', { token: player.token });
      expectErrorBody(refusedRead, 503, 'OVERLOADED');
      expect(refusedRead.headers['retry-after']).toBe('1');
      const refusedWrite = await write('third');
      expectErrorBody(refusedWrite, 503, 'OVERLOADED');

      expect((await api.get('/health')).status).toBe(200);
      const metrics = await api.get<string>('/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(/^http_requests_shed_total 2$/m);
      expect(metrics.body).toMatch(/^http_requests_in_flight 1$/m);

      await holder.query('COMMIT');
      expect((await inFlight).status).toBe(200);
    } finally {
      // Nothing to end once committed; after a failed expectation, the held request is let go.
      await holder.query('ROLLBACK');
      holder.release();
    }

    const personas = await api.get<PersonaBody[]>('/personas', { token: player.token });
    expect(personas.status).toBe(200);
    expect(personas.body).toHaveLength(1);
    expect(await keys()).toEqual(['first', 'second']);
  });
});

/** Until a backend of the app's database waits for a lock: the request the test holds up has reached it. */
async function untilSomeoneWaitsForALock(api: TestApp): Promise<void> {
  for (;;) {
    const { rows } = await api.database.query<{ waiting: number }>(
      "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if (rows[0].waiting > 0) return;
    await sleep(10);
  }
}
