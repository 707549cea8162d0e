import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jest } from '@jest/globals';
import { type RawAnswer, RawConnection } from './support/raw-http.js';
import { RealtimeClient, RefusedUpgrade } from './support/realtime-client.js';
import { TestApp } from './support/test-app.js';

/**
 * What a client can hold of an instance, tried over real sockets (issue 47, findings 2 and 15): a
 * request whose headers or body never end is answered 408 and closed, an upload that stalls is
 * closed while a slow one finishes, one address holds a bounded number of connections while others
 * are served, the instance holds a bounded number in all, upgrades decided at once are bounded, and
 * what Node.js's HTTP parser refuses gets the error body. The timeouts are made short here; what is
 * asserted is what the client sees (the answer, the connection closed), never how long it took.
 */
const PER_ADDRESS = 3;
const IN_ALL = 8;
const ENVIRONMENT = {
  HTTP_HEADERS_TIMEOUT: '300',
  HTTP_BODY_TIMEOUT: '300',
  HTTP_IDLE_TIMEOUT: '1500',
  HTTP_KEEP_ALIVE_TIMEOUT: '60000',
  HTTP_MAX_CONNECTIONS: String(IN_ALL),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
  // A load balancer's address: its connections carry many clients.
  TRUST_PROXY: '127.0.0.3',
  REALTIME_UPGRADES_IN_FLIGHT: '1',
};

/** The answer is the JSON error body with this status and code, quoting its own request id. */
function expectErrorAnswer(answer: RawAnswer, status: number, code: string): void {
  expect(answer).toMatchObject({ status, body: { status, code, requestId: answer.headers['x-request-id'] } });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
}

/** A media asset as media.e2e-spec.ts makes them: a default variant stored elsewhere. */
const newAsset = (name: string) => ({
  name,
  files: { default: { mimetype: 'image/png', name: 'elsewhere.png', uri: 'https://cdn.example.com/elsewhere.png' } },
});

/** An upload's headers, for a body sent by hand. */
const uploadHeaders = (path: string, token: string, length: number) =>
  `PUT ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: jwt ${token}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\n\r\n`;

describe('what a client can hold of an instance', () => {
  let api: TestApp;
  let admin: string;
  let mediaDir: string;
  const connections: RawConnection[] = [];

  /** A connection from `address` (a loopback address: 127.0.0.1, 127.0.0.2, …), closed after the test. */
  const open = async (address = '127.0.0.1') => {
    const connection = await RawConnection.open(api.baseUrl, address);
    connections.push(connection);
    return connection;
  };
  /** A metric's value as /metrics shows it (0 when it has no such series yet). */
  const metric = async (series: string): Promise<number> => {
    const text = (await api.get<string>('/metrics')).body;
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.split(' ')[1]);
  };
  /** Waits until the instance holds `count` connections (it learns of a close a moment after the client). */
  const holding = async (count: number) => {
    for (let waited = 0; (await metric('http_open_connections')) !== count && waited < 5000; waited += 20) await sleep(20);
    expect(await metric('http_open_connections')).toBe(count);
  };

  beforeAll(async () => {
    mediaDir = await mkdtemp(join(tmpdir(), 'http-limits-'));
    api = await TestApp.start({ ...ENVIRONMENT, MEDIA_DIR: mediaDir }, { listen: true });
    admin = await api.signIn('admin');
  });
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.destroy()));
    await holding(0);
  });
  afterAll(async () => {
    await api.close();
    await rm(mediaDir, { recursive: true, force: true });
  });

  describe('timeouts', () => {
    it('answers headers that never end with 408 and the error body, and closes the connection; a silent connection too', async () => {
      const halfway = await open();
      halfway.send('GET /health HTTP/1.1\r\nHost: localhost\r\n');
      const answer = await halfway.answer();
      expectErrorAnswer(answer, 408, 'REQUEST_TIMEOUT');
      expect(answer.body.message).toMatch(/HTTP_HEADERS_TIMEOUT/);
      await halfway.closed;

      const silent = await open();
      expect((await silent.answer()).body.code).toBe('REQUEST_TIMEOUT');
      await silent.closed;
    });

    it('answers a JSON body that stops halfway with 408 and closes the connection, before any guard runs', async () => {
      const stalled = await open();
      stalled.send('PUT /storage HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
      const answer = await stalled.answer();
      expectErrorAnswer(answer, 408, 'REQUEST_TIMEOUT');
      expect(answer.body.message).toMatch(/HTTP_BODY_TIMEOUT/);
      expect(answer.headers.connection).toBe('close');
      await stalled.closed;
      expect(await metric('http_requests_total{method="PUT",route="/storage",status="408"}')).toBe(1);
      // The connection that came next is served as usual.
      expect((await (await open()).get('/health')).status).toBe(200);
    });

    it('closes an upload that stalls for HTTP_IDLE_TIMEOUT, and keeps nothing of it', async () => {
      const asset = await api.created<{ uid: string }>('/assets/media', newAsset('Stalled'), admin);
      const upload = await open();
      upload.send(uploadHeaders(`/assets/media/${asset.uid}/files/icon`, admin, 10_000));
      upload.send(randomBytes(100));
      await upload.closed;
      const after = await api.found<{ files: Record<string, unknown> }>(`/assets/media/${asset.uid}`, admin);
      expect(Object.keys(after.files)).toEqual(['default']);
    });

    it('lets an upload slower than HTTP_BODY_TIMEOUT finish while its bytes keep coming', async () => {
      const asset = await api.created<{ uid: string }>('/assets/media', newAsset('Slow line'), admin);
      const upload = await open();
      const chunks = Array.from({ length: 8 }, () => randomBytes(100));
      upload.send(uploadHeaders(`/assets/media/${asset.uid}/files/icon`, admin, 800));
      for (const chunk of chunks) {
        upload.send(chunk);
        // Longer in all than HTTP_BODY_TIMEOUT, each pause far shorter than HTTP_IDLE_TIMEOUT.
        await sleep(100);
      }
      const answer = await upload.answer();
      expect(answer.status).toBe(200);
      expect(answer.body.files.icon).toMatchObject({ size: 800 });
    });
  });

  describe('connections', () => {
    it('refuses connections past HTTP_MAX_CONNECTIONS_PER_ADDRESS from one address while another is served', async () => {
      const held = await Promise.all(Array.from({ length: PER_ADDRESS }, () => open('127.0.0.1')));
      for (const connection of held) expect((await connection.get('/health')).status).toBe(200);
      const refusedBefore = await metric('http_connections_refused_total{reason="address"}');

      const oneMore = await open('127.0.0.1');
      await oneMore.closed;
      expect(oneMore.text).toBe('');
      expect((await (await open('127.0.0.2')).get('/health')).status).toBe(200);
      expect(await metric('http_connections_refused_total{reason="address"}')).toBe(refusedBefore + 1);

      // A place given back is taken again.
      await held[0].destroy();
      await holding(PER_ADDRESS);
      expect((await (await open('127.0.0.1')).get('/health')).status).toBe(200);
    });

    it('does not limit a proxy TRUST_PROXY names as one client, and closes connections past HTTP_MAX_CONNECTIONS', async () => {
      const proxy = await Promise.all(Array.from({ length: IN_ALL - 1 }, () => open('127.0.0.3')));
      for (const connection of proxy) expect((await connection.get('/health')).status).toBe(200);
      expect((await (await open('127.0.0.2')).get('/health')).status).toBe(200);
      const refusedBefore = await metric('http_connections_refused_total{reason="total"}');

      const past = await open('127.0.0.4');
      await past.closed;
      expect(past.text).toBe('');
      expect(await metric('http_connections_refused_total{reason="total"}')).toBe(refusedBefore + 1);
    });
  });

  describe("what Node.js's HTTP parser refuses", () => {
    it('answers a malformed header line with 400 MALFORMED_REQUEST and the error body', async () => {
      const connection = await open();
      connection.send('GET /health HTTP/1.1\r\nHost: localhost\r\nBad Header: yes\r\n\r\n');
      const answer = await connection.answer();
      expectErrorAnswer(answer, 400, 'MALFORMED_REQUEST');
      expect(answer.body.message).toMatch(/not valid HTTP\/1\.1/);
      await connection.closed;
    });

    it('answers headers over 16 KiB with 431 HEADERS_TOO_LARGE and the error body', async () => {
      const connection = await open();
      connection.send(`GET /health HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
      const answer = await connection.answer();
      expectErrorAnswer(answer, 431, 'HEADERS_TOO_LARGE');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      await connection.closed;
    });

    it('answers an upgrade whose Host is not a host name with 400 and closes it', async () => {
      const connection = await open();
      connection.send(
        'GET /realtime HTTP/1.1\r\nHost: [\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
      );
      const answer = await connection.answer();
      expectErrorAnswer(answer, 400, 'MALFORMED_REQUEST');
      expect(answer.body.message).toBe('the Host header is not a host name');
      await connection.closed;
    });
  });

  describe('upgrades in flight', () => {
    it('answers an upgrade past REALTIME_UPGRADES_IN_FLIGHT with 503 OVERLOADED at once, while the one being decided goes on', async () => {
      // The ticket lookup of the first upgrade waits on a table lock the test holds: it stays in flight.
      const lock = await api.database.connect();
      try {
        await lock.query('BEGIN');
        await lock.query('LOCK TABLE realtime_tickets IN ACCESS EXCLUSIVE MODE');
        const first = RealtimeClient.connect(api.baseUrl, {
          ticket: randomBytes(32).toString('base64url'),
          handshakeTimeout: 10_000,
        }).catch((error: unknown) => error);
        for (let waited = 0; waited < 5000; waited += 20) {
          const { rows } = await api.database.query<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%realtime_tickets%'`,
          );
          if (rows[0].waiting > 0) break;
          await sleep(20);
        }

        const second = await RealtimeClient.connect(api.baseUrl, { token: admin, handshakeTimeout: 5000 }).catch((error: unknown) => error);
        expect(second).toBeInstanceOf(RefusedUpgrade);
        const { status, body, headers } = second as RefusedUpgrade;
        expect({ status, code: body.code, retryAfter: headers['retry-after'] }).toEqual({
          status: 503,
          code: 'OVERLOADED',
          retryAfter: '1',
        });
        expect(body.message).toMatch(/REALTIME_UPGRADES_IN_FLIGHT/);

        await lock.query('COMMIT');
        // The first was decided on its merits once the lookup could run: an unknown ticket.
        expect(await first).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
        // And the bound is free again.
        const socket = await RealtimeClient.connect(api.baseUrl, { token: admin, handshakeTimeout: 5000 });
        await socket.close();
        expect(await metric('realtime_upgrades_shed_total')).toBe(1);
      } finally {
        await lock.query('ROLLBACK').catch(() => undefined);
        lock.release();
      }
    });
  });
});

describe('a timer that throws', () => {
  it('is logged and counted, and the service keeps serving (the memory compactor reading EMFILE)', async () => {
    const emfile = Object.assign(new Error('EMFILE: too many open files, uv_resident_set_memory'), { code: 'EMFILE', errno: -24 });
    const rss = jest.spyOn(process.memoryUsage, 'rss').mockImplementation(() => {
      throw emfile;
    });
    const api = await TestApp.start({ MEMORY_COMPACT_IDLE: '1' });
    try {
      const failures = async () => {
        const text = (await api.get<string>('/metrics')).body;
        const line = text.split('\n').find((candidate) => candidate.startsWith('background_job_failures_total{job="memory-compaction"} '));
        return line === undefined ? 0 : Number(line.split(' ')[1]);
      };
      for (let waited = 0; (await failures()) < 2 && waited < 10_000; waited += 50) await sleep(50);
      expect(await failures()).toBeGreaterThanOrEqual(2);
      expect((await api.get('/health')).status).toBe(200);
    } finally {
      rss.mockRestore();
      await api.close();
    }
  });
});
