import { connect } from 'node:net';
import { CapturedLogs, WARN } from './support/captured-logs.js';
import { expectErrorBody } from './support/expectations.js';
import { type SignedInPlayer, TestApp } from './support/test-app.js';

/**
 * Bodies whose bytes are few but whose values are many (issue 47, finding 1): every JSON body used to be
 * copied node by node before it was judged, so a megabyte of `{}` stalled the service for seconds
 * without signing in, and a few signed-in writes ran its heap out. Now a route's body is bounded in
 * values before it is parsed, unknown fields are refused before anything is copied, and JSON fields are
 * checked by their own walk: finite numbers wherever JSON is stored (finding 6).
 */
const tinyObjects = (count: number) => `[${Array(count).fill('{}').join(',')}]`;

describe('hostile bodies', () => {
  let api: TestApp;
  let admin: SignedInPlayer;
  let player: SignedInPlayer & { personaUid: string };

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signInPlayer('admin');
    player = await api.signInWithPersona('body-player');
  });

  afterAll(async () => {
    await api?.close();
  });

  describe('values counted before parsing', () => {
    it('refuses a device sign-in carrying 340,000 tiny objects with 413, before it is parsed, and makes no account', async () => {
      const users = await api.countRows('users');
      const body = `{"deviceId":"abcdefghijklmnopqrstuvwxyz","junk":${tinyObjects(340_000)}}`;
      expect(Buffer.byteLength(body)).toBeGreaterThan(1_000_000);
      const response = await api.post('/auth/device', body);
      expectErrorBody(response, 413, 'PAYLOAD_TOO_LARGE');
      expect(response.body.errors).toEqual([{ field: 'body', message: 'holds more than 4096 values' }]);
      expect(await api.countRows('users')).toBe(users);
    });

    it('refuses an unknown field of a body within its budget by name, and makes no account', async () => {
      const users = await api.countRows('users');
      const response = await api.post('/auth/device', `{"deviceId":"abcdefghijklmnopqrstuvwxyz","junk":${tinyObjects(4000)}}`);
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
      expect(response.body.errors).toEqual([{ field: 'junk', message: 'property junk should not exist' }]);
      expect(await api.countRows('users')).toBe(users);
    });

    it('refuses fifteen storage values of 21,842 empty objects each with 413, and writes nothing', async () => {
      const value = `{"a":${tinyObjects(21_842)}}`;
      expect(Buffer.byteLength(value)).toBeLessThan(64 * 1024);
      const objects = Array.from({ length: 15 }, (_, index) => `{"collection":"junk","key":"k${index}","value":${value}}`);
      const response = await api.put('/storage', `{"objects":[${objects.join(',')}]}`, { token: player.token });
      expectErrorBody(response, 413, 'PAYLOAD_TOO_LARGE');
      expect(response.body.errors).toEqual([{ field: 'body', message: 'holds more than 65536 values' }]);
      expect(await api.countRows('storage_objects')).toBe(0);
    });

    it('takes a body over the standard budget on a route of a larger family, and refuses it on a standard one', async () => {
      const many = Array(5000).fill(0);
      const board = await api.created<{ uid: string; version: number }>(
        '/leaderboards',
        { name: 'Values', metadata: { many } },
        admin.token,
      );
      expect(board).toMatchObject({ metadata: { many } });
      const persona = await api.post('/personas', { name: 'Many', junk: many }, { token: player.token });
      expectErrorBody(persona, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('reads a GET’s body without parsing it: neither its values nor its levels fail the read', async () => {
      for (const body of ['['.repeat(2000), `{"junk":${tinyObjects(100_000)}}`, 'not json']) {
        const response = await api.request('GET', '/personas', { token: player.token, body });
        expect({ status: response.status, personas: response.body.length }).toEqual({ status: 200, personas: 1 });
      }
    });

    it('states each operation’s limits in the document', async () => {
      const document = (await api.get('/docs-json')).body;
      expect(document.paths['/storage'].put['x-body-limits']).toEqual({ family: 'saves', bytes: 1048576, values: 65536, depth: 64 });
      expect(document.paths['/sessions'].post['x-body-limits']).toMatchObject({ family: 'large', values: 32768 });
      expect(document.paths['/auth/device'].post['x-body-limits']).toMatchObject({ family: 'standard', values: 4096 });
      for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
        for (const [method, operation] of Object.entries<any>(item)) {
          if (operation?.requestBody?.content?.['application/json']) {
            expect({ path, method, limits: operation['x-body-limits'] }).toEqual({
              path,
              method,
              limits: expect.objectContaining({ depth: 64 }),
            });
          }
        }
      }
    });
  });

  describe('over a socket', () => {
    let served: TestApp;
    const logs = new CapturedLogs();

    beforeAll(async () => {
      served = await TestApp.start({ LOG_LEVEL: 'info' }, { listen: true, logs });
    });
    afterAll(async () => {
      await served?.close();
    });

    it('answers 413 once a body passes its values, before the rest of it is sent, and closes the connection', async () => {
      const url = new URL(served.baseUrl);
      const first = `{"deviceId":"abcdefghijklmnopqrstuvwxyz","junk":${tinyObjects(20_000)}`;
      const mark = logs.mark();
      const answer = await new Promise<{ text: string; closed: boolean }>((resolve, reject) => {
        const socket = connect({ host: url.hostname, port: Number(url.port) });
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('close', () => resolve({ text, closed: true }));
        socket.on('error', reject);
        // Headers announcing a megabyte, then 60 KB of it, then nothing: the rest never comes.
        socket.write(
          `POST /auth/device HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1020050\r\n\r\n${first}`,
        );
      });
      expect(answer.closed).toBe(true);
      expect(answer.text).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer.text).toMatch(/connection: close/i);
      const body = JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4));
      expect(body).toMatchObject({
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
        errors: [{ field: 'body', message: 'holds more than 4096 values' }],
      });
      // Answered once: no second answer attempted when the connection closed under the waiting parser.
      const lines = logs.since(mark);
      expect(
        lines.filter((line) => line.msg === 'request completed').map((line) => (line.res as { statusCode: number }).statusCode),
      ).toEqual([413]);
      expect(lines.filter((line) => line.level >= WARN && line.msg !== 'request completed')).toEqual([]);
    });
  });

  describe('JSON values passed through', () => {
    it('stores a value of 21,000 empty objects and reads it back equal, by batch, by key and by list', async () => {
      const value = { a: Array.from({ length: 21_000 }, () => ({})), b: { nested: [1, 'two', null, true, -1.5e300] } };
      const written = await api.put('/storage', { objects: [{ collection: 'big', key: 'one', value }] }, { token: player.token });
      expect(written.status).toBe(200);
      const one = await api.get(`/storage/big/one`, { token: player.token });
      expect(one.status).toBe(200);
      expect(one.body.value).toEqual(value);
      expect(one.headers.etag).toBe(`"${written.body.acks[0].version}"`);
      const batch = await api.post('/storage/read', { objects: [{ collection: 'big', key: 'one' }] }, { token: player.token });
      expect(batch.body.objects.map((object: { value: unknown }) => object.value)).toEqual([value]);
      const list = await api.get('/storage/big', { token: player.token });
      expect(list.body.objects.map((object: { key: string; value: unknown }) => [object.key, object.value])).toEqual([['one', value]]);
    });

    it('answers a value holding the text of a marker as the text it is', async () => {
      const value = { marker: '"0123456789abcdef0"', quote: '\\"', unicode: 'Ærøskøbing 東京 🎮 \u2028' };
      await api.put('/storage', { objects: [{ collection: 'odd', key: 'one', value }] }, { token: player.token });
      expect((await api.get('/storage/odd/one', { token: player.token })).body.value).toEqual(value);
    });
  });

  describe('finite numbers wherever JSON is stored (finding 6)', () => {
    it('refuses 1e999 in a record’s metadata with 400 naming it, and records nothing', async () => {
      const board = await api.created<{ uid: string }>('/leaderboards', { name: 'Finite' }, admin.token);
      const response = await api.post(`/leaderboards/${board.uid}/records`, '{"score":7,"metadata":{"x":1e999}}', { token: player.token });
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
      expect(response.body.errors).toEqual([{ field: 'metadata', message: 'holds a number beyond the finite range at x' }]);
      expect((await api.get(`/leaderboards/${board.uid}/records`, { token: player.token })).body).toEqual([]);
    });

    it('refuses 1e999 in a board’s metadata, on create and on update', async () => {
      const created = await api.post('/leaderboards', '{"name":"Infinite","metadata":{"season":1e999}}', { token: admin.token });
      expectErrorBody(created, 400, 'VALIDATION_FAILED');
      expect(created.body.errors).toEqual([{ field: 'metadata', message: 'holds a number beyond the finite range at season' }]);
      const board = await api.created<{ uid: string }>('/leaderboards', { name: 'Finite later' }, admin.token);
      const updated = await api.put(`/leaderboards/${board.uid}`, '{"metadata":{"a":[1,-1e999]}}', { token: admin.token });
      expectErrorBody(updated, 400, 'VALIDATION_FAILED');
      expect((await api.found<{ metadata: unknown }>(`/leaderboards/${board.uid}`, admin.token)).metadata).toBeNull();
    });

    it('refuses a text jsonb cannot hold in metadata with 400, not 500', async () => {
      const board = await api.created<{ uid: string }>('/leaderboards', { name: 'Texts' }, admin.token);
      const response = await api.post(
        `/leaderboards/${board.uid}/records`,
        { score: 1, metadata: { 'a\u0000': 1 } },
        { token: player.token },
      );
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
    });
  });
});
