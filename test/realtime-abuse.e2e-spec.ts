import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { CapturedLogs, WARN } from './support/captured-logs.js';
import { clientFrame, RawWebSocket } from './support/raw-websocket.js';
import { type ConnectOptions, RealtimeClient, RefusedUpgrade } from './support/realtime-client.js';
import { TestApp, type TestResponse } from './support/test-app.js';

/**
 * Hostile clients of /realtime: an upgrade spends the same rate-limit budgets as a REST request and is
 * refused with 429 over them; a flood of made-up tickets writes nothing; a malformed frame closes its
 * socket with the code RFC 6455 gives it, and costs one warning line.
 */
const LIMIT = 5;
const IP_LIMIT = 12;
const ENVIRONMENT = {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_PER_MINUTE: String(LIMIT),
  RATE_LIMIT_IP_PER_MINUTE: String(IP_LIMIT),
  TRUST_PROXY: 'true',
};

let addressCount = 0;
/** A client address nobody has used yet (TEST-NET-1), so that each test starts with full budgets. */
const freshAddress = () => `192.0.2.${++addressCount}`;
const from = (address: string, token?: string) => ({ token, headers: { 'x-forwarded-for': address } });

async function statuses(count: number, send: () => Promise<TestResponse>): Promise<number[]> {
  const result: number[] = [];
  for (let index = 0; index < count; index++) result.push((await send()).status);
  return result;
}

function expectRateLimited(refused: unknown, budget: RegExp): void {
  expect(refused).toBeInstanceOf(RefusedUpgrade);
  const { status, body, headers } = refused as RefusedUpgrade;
  expect({ status, code: body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
  expect(body.message).toMatch(budget);
  expect(body.requestId).toBe(headers['x-request-id']);
  const retryAfter = Number(headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('hostile clients of /realtime', () => {
  let api: TestApp;
  const logs = new CapturedLogs();
  const clients: RealtimeClient[] = [];

  /** An upgrade of `instance` from `address`: the open socket, or why not (RefusedUpgrade, or the client's error). */
  const upgrade = (address: string, options: ConnectOptions, instance = api) =>
    RealtimeClient.connect(instance.baseUrl, { ...options, headers: { 'x-forwarded-for': address }, handshakeTimeout: 3000 }).then(
      (client) => {
        clients.push(client);
        return client;
      },
      (error: unknown) => error,
    );
  /** Signs a player in from an address of its own: our JWT. */
  let players = 0;
  const signIn = async (label: string) => (await api.openSession(`${label}-${++players}`, { 'x-forwarded-for': freshAddress() })).token;

  beforeAll(async () => {
    api = await TestApp.start(ENVIRONMENT, { listen: true, logs });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => api.close());

  describe('rate limits', () => {
    it('refuses the upgrade of a user throttled on REST with 429 and Retry-After, by token and by ticket', async () => {
      const alice = await signIn('alice');
      const address = freshAddress();
      expect(await statuses(LIMIT, () => api.get('/personas', from(address, alice)))).toEqual(Array(LIMIT).fill(200));
      expect((await api.get('/personas', from(address, alice))).status).toBe(429);
      // From another address too: the budget is the user's.
      expectRateLimited(await upgrade(freshAddress(), { token: alice }), new RegExp(`for this user: at most ${LIMIT} a minute`));

      const bob = await signIn('bob');
      const bobs = freshAddress();
      const issued = await api.post('/realtime/tickets', undefined, from(bobs, bob));
      expect(issued.status).toBe(201);
      expect(await statuses(LIMIT - 1, () => api.get('/personas', from(bobs, bob)))).toEqual(Array(LIMIT - 1).fill(200));
      expectRateLimited(await upgrade(freshAddress(), { ticket: issued.body.ticket }), /for this user/);
    });

    it('counts upgrades against the REST budget: a user has one budget for both', async () => {
      const carol = await signIn('carol');
      const address = freshAddress();
      for (let index = 0; index < LIMIT; index++) {
        const socket = await upgrade(address, { token: carol });
        expect(socket).toBeInstanceOf(RealtimeClient);
        await (socket as RealtimeClient).close();
      }
      const refused = await api.get('/personas', from(freshAddress(), carol));
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
      expect(refused.body.message).toMatch(/for this user/);
    });

    it('answers a flood of made-up tickets from one address with 401, then 429, and writes nothing', async () => {
      const address = freshAddress();
      const flood = LIMIT + IP_LIMIT;
      const lock = await api.database.connect();
      const answers: Array<number | string> = [];
      const refusals: unknown[] = [];
      try {
        // A SHARE lock lets reads through and holds every write back, even a DELETE that would remove no
        // row: the flood is answered only if answering it writes nothing.
        await lock.query('BEGIN');
        await lock.query('LOCK TABLE realtime_tickets, notifications IN SHARE MODE');
        for (let index = 0; index < flood; index++) {
          const answer = await upgrade(address, { ticket: randomBytes(32).toString('base64url') });
          answers.push(answer instanceof RefusedUpgrade ? answer.status : String(answer));
          refusals.push(answer);
          if (!(answer instanceof RefusedUpgrade)) break;
        }
      } finally {
        await lock.query('ROLLBACK');
        lock.release();
      }
      expect(answers).toEqual([...Array(LIMIT).fill(401), ...Array(flood - LIMIT).fill(429)]);
      // The address's requests budget, then its budget as an address whoever calls.
      expectRateLimited(refusals[LIMIT], new RegExp(`from this address: at most ${LIMIT} a minute`));
      expectRateLimited(refusals[IP_LIMIT], new RegExp(`from this address: at most ${IP_LIMIT} a minute`));
    });
  });

  describe('tickets', () => {
    it('open one socket only, when upgrades on two instances race with the same ticket', async () => {
      // Nest's logger is one per process: the second instance logs to the same capture.
      const other = await TestApp.start({ ...ENVIRONMENT, DATABASE_URL: api.databaseUrl }, { listen: true, logs });
      try {
        for (let round = 0; round < 3; round++) {
          const player = await signIn('racer');
          const ticket = (await api.post('/realtime/tickets', undefined, from(freshAddress(), player))).body.ticket as string;
          const answers = await Promise.all([api, other, api, other].map((instance) => upgrade(freshAddress(), { ticket }, instance)));
          expect(answers.filter((answer) => answer instanceof RealtimeClient)).toHaveLength(1);
          const refusals = answers.filter((answer) => answer instanceof RefusedUpgrade);
          expect(refusals.map((refused) => refused.status)).toEqual([401, 401, 401]);
        }
      } finally {
        await Promise.all(clients.splice(0).map((client) => client.close()));
        await other.close();
      }
    });
  });

  describe('malformed frames', () => {
    it.each([
      ['an unmasked client frame', 1002, clientFrame(0x1, Buffer.from('hi'), { masked: false })],
      ['a reserved opcode', 1002, clientFrame(0x3, Buffer.alloc(0))],
      ['a frame over the 4 KiB limit', 1009, clientFrame(0x2, Buffer.alloc(16), { declaredLength: 5000 })],
      ['a text frame that is not UTF-8', 1007, clientFrame(0x1, Buffer.from([0xc3, 0x28]))],
    ])('close the socket on %s with %d, and log one warning without a stack', async (_what, code, frame) => {
      const token = await signIn('framer');
      const userUid = decodeJwt(token).sub!;
      const socket = await RawWebSocket.open(api.baseUrl, { authorization: `jwt ${token}`, 'x-forwarded-for': freshAddress() });
      try {
        await socket.firstFrame();
        const mark = logs.mark();
        socket.send(frame);
        expect(await socket.closed).toBe(code);
        const notable = logs.since(mark).filter((line) => line.level >= WARN);
        expect(notable).toEqual([expect.objectContaining({ level: WARN, msg: expect.stringContaining(`socket of user ${userUid}`) })]);
        expect(JSON.stringify(notable)).not.toMatch(/stack|\\n\s+at /);
      } finally {
        socket.destroy();
      }
    });
  });
});
