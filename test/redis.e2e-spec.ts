import { randomUUID } from 'node:crypto';
import { SessionPasswordAttempts } from '../src/sessions/session-password-attempts.js';
import { expectErrorBody } from './support/expectations.js';
import { RealtimeClient } from './support/realtime-client.js';
import { RedisServer } from './support/redis-server.js';
import { TestApp, type TestResponse } from './support/test-app.js';

/**
 * REDIS_URL with a real redis-server: two instances share one rate limit; with Redis killed they keep
 * serving, count per instance and say they are degraded; Redis back, the limit is shared again with no
 * restart.
 */
const LIMIT = 5;
let addressCount = 0;
/** A client address nobody has used yet (TEST-NET-2), so that each test starts with a full budget. */
const freshAddress = () => `198.51.100.${++addressCount}`;

describe('rate limits and readiness with Redis', () => {
  let redis: RedisServer;
  let instances: TestApp[];

  beforeAll(async () => {
    redis = await RedisServer.start();
    const environment = {
      REDIS_URL: redis.url,
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      TRUST_PROXY: 'true',
    };
    instances = [await TestApp.start(environment), await TestApp.start(environment)];
    await waitFor(async () => (await instances[0].get('/health/ready')).body.redis === 'up');
  });

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.close()));
    await redis?.stop();
  });

  /** `count` anonymous reads from one address, alternating between the two instances. */
  async function alternate(count: number, address: string): Promise<TestResponse[]> {
    const answers: TestResponse[] = [];
    for (let index = 0; index < count; index++) {
      answers.push(await instances[index % 2].get('/achievements/count', { headers: { 'x-forwarded-for': address } }));
    }
    return answers;
  }

  it('holds one budget across both instances', async () => {
    const answers = await alternate(LIMIT + 2, freshAddress());
    expect(answers.map((answer) => answer.status)).toEqual([...Array(LIMIT).fill(200), 429, 429]);
    expectErrorBody(answers[LIMIT], 429, 'RATE_LIMITED');
    // A fixed window of a minute: the wait is at most its remainder.
    const retryAfter = Number(answers[LIMIT].headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await instances[0].get('/health/ready')).body).toEqual({ status: 'ok', redis: 'up' });
  });

  it('keeps serving with Redis gone, counting per instance, and shares the limit again once it is back', async () => {
    await redis.kill();
    try {
      await waitFor(async () => (await instances[1].get('/health/ready')).body.redis === 'down');
      const ready = await instances[0].get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'degraded', redis: 'down' });

      // Each instance now counts its own: the address gets the limit from each.
      const answers = await alternate(2 * LIMIT + 2, freshAddress());
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2 * LIMIT);
      expect(answers.slice(-2).map((answer) => answer.status)).toEqual([429, 429]);
      const metrics = (await instances[0].get<string>('/metrics')).body;
      expect(metrics).toMatch(/^redis_up 0$/m);
      expect(Number(/^redis_fallbacks_total\{component="rate_limit"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(LIMIT);
    } finally {
      await redis.restart();
    }
    await waitFor(async () =>
      (await Promise.all(instances.map((instance) => instance.get('/health/ready')))).every((ready) => ready.body.status === 'ok'),
    );
    const shared = await alternate(LIMIT + 1, freshAddress());
    expect(shared.map((answer) => answer.status)).toEqual([...Array(LIMIT).fill(200), 429]);
    expect((await instances[1].get<string>('/metrics')).body).toMatch(/^redis_up 1$/m);
  });

  it('counts wrong session passwords across both instances (SESSION_PASSWORD_ATTEMPTS a minute in all)', async () => {
    const [session, guesser] = [randomUUID(), randomUUID()];
    const [first, second] = instances.map((instance) => instance.app.get(SessionPasswordAttempts));
    for (let guess = 0; guess < 5; guess++) {
      const counter = guess % 2 === 0 ? first : second;
      await counter.requireAttemptsLeft(session, guesser);
      await counter.wrongPassword(session, guesser);
    }
    // Three guesses went through the first instance and two through the second: only a shared count refuses.
    for (const counter of [first, second]) {
      await expect(counter.requireAttemptsLeft(session, guesser)).rejects.toMatchObject({ retryAfterSeconds: expect.any(Number) });
    }
    await expect(second.requireAttemptsLeft(session, randomUUID())).resolves.toBeUndefined();
  });
});

describe('realtime wake-ups over Redis', () => {
  let redis: RedisServer;
  let api: TestApp;

  beforeAll(async () => {
    redis = await RedisServer.start();
    api = await TestApp.start({ REDIS_URL: redis.url }, { listen: true });
    await waitFor(async () => (await api.get('/health/ready')).body.redis === 'up');
  });

  afterAll(async () => {
    await api?.close();
    await redis?.stop();
  });

  /** A host's session joined by a guest: the host is told (session.updated). */
  async function joined(host: { token: string }, guest: { token: string }): Promise<string> {
    const session = await api.post('/sessions', { numTeams: 1, teamSize: 4 }, { token: host.token });
    expect(session.status).toBe(201);
    expect((await api.get(`/sessions/${session.body.uid}/join`, { token: guest.token })).status).toBe(200);
    return session.body.uid as string;
  }

  it('delivers events published through Redis, and never one whose change rolled back', async () => {
    const [host, guest] = await api.signInPlayers(2, 'redis-host');
    const socket = await RealtimeClient.connect(api.baseUrl, { token: host.token });
    try {
      const uid = await joined(host, guest);
      const frame = await socket.waitFor((event) => event.type === 'session.updated' && (event.data as { uid: string }).uid === uid);
      expect((frame.data as { joined: string[] }).joined).toEqual([guest.uid]);
      // A join refused (the session is full) writes nothing, so nothing is delivered for it.
      const full = await api.post('/sessions', { numTeams: 1, teamSize: 1 }, { token: host.token });
      const [other] = await api.signInPlayers(1, 'redis-late');
      expect((await api.get(`/sessions/${full.body.uid}/join`, { token: other.token })).status).toBe(409);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(socket.events.filter((event) => (event.data as { uid: string }).uid === full.body.uid)).toEqual([]);
    } finally {
      await socket.close();
    }
  });

  it('still delivers every event while Redis is down, by polling the inbox, and is woken by Redis again once it is back', async () => {
    const [host, ...guests] = await api.signInPlayers(4, 'redis-outage');
    const socket = await RealtimeClient.connect(api.baseUrl, { token: host.token });
    try {
      await redis.kill();
      await waitFor(async () => (await api.get('/health/ready')).body.redis === 'down');
      const during = await joined(host, guests[0]);
      await socket.waitFor((event) => event.type === 'session.updated' && (event.data as { uid: string }).uid === during);
      // Both fallbacks are counted: the inbox polls, and the token checks that asked the database.
      const metrics = (await api.get<string>('/metrics')).body;
      expect(Number(/^redis_fallbacks_total\{component="realtime"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
      expect(Number(/^redis_fallbacks_total\{component="revocation"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
      await redis.restart();
      await waitFor(async () => (await api.get('/health/ready')).body.redis === 'up');
      const after = await joined(host, guests[1]);
      await socket.waitFor((event) => event.type === 'session.updated' && (event.data as { uid: string }).uid === after);
      // Each event once, in order.
      const ids = socket.events.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await socket.close();
    }
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
