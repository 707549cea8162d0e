import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { MediaSweeper } from '../src/media/media-sweeper.service.js';
import type { MediaAssetBody } from './support/api-types.js';
import { expectErrorBody, expectValidationError } from './support/expectations.js';
import { TestApp, type TestResponse } from './support/test-app.js';

/** Media files uploaded to the service and served by it (issue 33): local disk, then an S3-compatible store. */

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const contentDigest = (bytes: Buffer) => `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;

/** A small valid PNG (1x1, transparent), and other bytes of a given length. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>');

/** The files of the local store, below MEDIA_DIR: `blobs/ab/abcd…` and `tmp/…`. */
async function storedFiles(directory: string): Promise<{ blobs: string[]; temporaries: string[] }> {
  const blobs: string[] = [];
  for (const folder of await readdir(join(directory, 'blobs')).catch(() => []))
    blobs.push(...(await readdir(join(directory, 'blobs', folder))));
  return { blobs, temporaries: await readdir(join(directory, 'tmp')).catch(() => []) };
}

interface Upload {
  bytes: Buffer;
  type?: string;
  token: string;
  query?: string;
  headers?: Record<string, string>;
}

function uploadTo(api: TestApp, path: string, upload: Upload): Promise<TestResponse<MediaAssetBody>> {
  return inject(api, 'PUT', `${path}${upload.query ?? ''}`, {
    payload: upload.bytes,
    headers: { authorization: `jwt ${upload.token}`, ...(upload.type && { 'content-type': upload.type }), ...upload.headers },
  });
}

/** `app.inject()` with a binary body or answer, checked against the OpenAPI document as TestApp.request is. */
async function inject(
  api: TestApp,
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  options: { payload?: Buffer; headers?: Record<string, string> } = {},
): Promise<TestResponse & { raw: Buffer }> {
  const response = await api.app.inject({ method, url, headers: options.headers, payload: options.payload });
  const isJson = String(response.headers['content-type'] ?? '').includes('application/json') && response.body !== '';
  const result = {
    status: response.statusCode,
    body: isJson ? response.json() : response.body,
    headers: response.headers,
    raw: response.rawPayload,
  };
  TestApp.checkContract(method, url, result);
  return result;
}

/** The path of a served file: the `uri` without the service's address. */
const pathOf = (uri: string) => new URL(uri).pathname;

describe('media files', () => {
  describe('on the local disk', () => {
    let api: TestApp;
    let admin: string;
    let mediaDir: string;

    beforeAll(async () => {
      mediaDir = await mkdtemp(join(tmpdir(), 'media-e2e-'));
      api = await TestApp.start(
        { MEDIA_DIR: mediaDir, MEDIA_MAX_BYTES: '65536', MEDIA_SWEEP_INTERVAL: '0', MEDIA_BASE_URL: 'https://game.example.com' },
        { listen: true },
      );
      admin = await api.signIn('admin');
    });

    afterAll(async () => {
      await api.close();
      await rm(mediaDir, { recursive: true, force: true });
    });

    async function newAsset(name = 'Sword art'): Promise<MediaAssetBody> {
      return api.created<MediaAssetBody>(
        '/assets/media',
        { name, files: { default: { mimetype: 'image/png', name: 'elsewhere.png', uri: 'https://cdn.example.com/elsewhere.png' } } },
        admin,
      );
    }

    it('stores an upload and serves the same bytes, with the digest it computed', async () => {
      const asset = await newAsset();
      const uploaded = await uploadTo(api, `/assets/media/${asset.uid}/files/icon`, {
        bytes: PNG,
        type: 'image/png',
        token: admin,
        query: '?name=sword.png',
        headers: { 'content-digest': contentDigest(PNG) },
      });

      expect(uploaded.status).toBe(200);
      expect(uploaded.headers.etag).toBe(`"${asset.version + 1}"`);
      const file = uploaded.body.files.icon;
      expect(file).toEqual(
        expect.objectContaining({ mimetype: 'image/png', name: 'sword.png', sha256sum: sha256(PNG), size: PNG.length, version: 0 }),
      );
      expect(file.uri).toBe(`https://game.example.com/media/image/png/${sha256(PNG)}`);
      expect(uploaded.body.files.default).toEqual(asset.files.default);

      const served = await inject(api, 'GET', pathOf(file.uri));
      expect(served.status).toBe(200);
      expect(served.raw.equals(PNG)).toBe(true);
      expect(served.headers).toEqual(
        expect.objectContaining({
          'content-type': 'image/png',
          'content-length': String(PNG.length),
          etag: `"${sha256(PNG)}"`,
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
        }),
      );
      expect(served.headers['content-disposition']).toBeUndefined();

      // The asset as anyone reads it names the same file.
      const player = await api.newPlayer();
      expect((await api.found<MediaAssetBody>(`/assets/media/${asset.uid}`, player.token)).files.icon).toEqual(file);
    });

    it('takes the digest as ?sha256= and the name from Content-Disposition, and streams a body sent in chunks', async () => {
      const asset = await newAsset();
      const bytes = randomBytes(40_000);
      const answer = await new Promise<{ status: number; body: MediaAssetBody }>((resolve, reject) => {
        const request = httpRequest(
          `${api.baseUrl}/assets/media/${asset.uid}/files/default?sha256=${sha256(bytes).toUpperCase()}`,
          {
            method: 'PUT',
            headers: {
              authorization: `jwt ${admin}`,
              'content-type': 'application/octet-stream',
              'content-disposition': 'attachment; filename="bundle.bin"',
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
          },
        );
        request.on('error', reject);
        for (let offset = 0; offset < bytes.length; offset += 8192) request.write(bytes.subarray(offset, offset + 8192));
        request.end();
      });

      expect(answer.status).toBe(200);
      expect(answer.body.files.default).toEqual(
        expect.objectContaining({
          name: 'bundle.bin',
          mimetype: 'application/octet-stream',
          sha256sum: sha256(bytes),
          size: bytes.length,
          version: 1,
        }),
      );
      expect(answer.body.files.default.uid).toBe(asset.files.default.uid);
      expect((await inject(api, 'GET', pathOf(answer.body.files.default.uri))).raw.equals(bytes)).toBe(true);
      // The admin audit keeps that bytes came, and the file they made, not the bytes themselves.
      const [entry] = await api.found<Array<{ id: string }>>('/admin/audit?limit=1&action=put%20/assets/media/{id}/files/{variant}', admin);
      const audited = await api.found<{ targetUid: string; request: { body: unknown }; after: { files: unknown } }>(
        `/admin/audit/${entry.id}`,
        admin,
      );
      expect(audited.targetUid).toBe(asset.uid);
      expect(audited.request.body).toEqual({ streamed: true });
      expect(audited.after.files).toEqual(answer.body.files);
    });

    it('refuses bytes whose digest is not the one stated: 400, and nothing stored', async () => {
      const asset = await newAsset();
      const before = await storedFiles(mediaDir);
      const bytes = randomBytes(1000);

      const byHeader = await uploadTo(api, `/assets/media/${asset.uid}/files/icon`, {
        bytes,
        type: 'image/png',
        token: admin,
        headers: { 'content-digest': contentDigest(PNG) },
      });
      expectErrorBody(byHeader, 400, 'DIGEST_MISMATCH');
      const byQuery = await uploadTo(api, `/assets/media/${asset.uid}/files/icon`, {
        bytes,
        type: 'image/png',
        token: admin,
        query: `?sha256=${sha256(PNG)}`,
      });
      expectErrorBody(byQuery, 400, 'DIGEST_MISMATCH');
      expectValidationError(
        await uploadTo(api, `/assets/media/${asset.uid}/files/icon`, {
          bytes,
          type: 'image/png',
          token: admin,
          headers: { 'content-digest': 'sha-256=abc' },
        }),
        'Content-Digest',
      );
      expectValidationError(
        await uploadTo(api, `/assets/media/${asset.uid}/files/icon`, { bytes, type: 'image/png', token: admin, query: '?sha256=12' }),
        'sha256',
      );

      expect(await api.found<MediaAssetBody>(`/assets/media/${asset.uid}`, admin)).toEqual(asset);
      expect(await storedFiles(mediaDir)).toEqual(before);
      expect((await inject(api, 'GET', `/media/image/png/${sha256(bytes)}`)).status).toBe(404);
    });

    it('cuts off an upload past MEDIA_MAX_BYTES mid-stream with 413, keeping nothing', async () => {
      const asset = await newAsset();
      const before = await storedFiles(mediaDir);
      // Chunked: no Content-Length tells the service the size before the bytes do.
      const answer = await new Promise<{ status: number; body: { code: string } }>((resolve, reject) => {
        const request = httpRequest(`${api.baseUrl}/assets/media/${asset.uid}/files/big`, {
          method: 'PUT',
          headers: { authorization: `jwt ${admin}`, 'content-type': 'application/octet-stream' },
        });
        request.on('response', (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
        });
        request.on('error', reject);
        const chunk = randomBytes(16_384);
        let sent = 0;
        const sendMore = () => {
          // Far more than the limit, unless the service answers first and closes the connection.
          while (sent < 1_000 && request.write(chunk)) sent += 1;
          if (sent < 1_000) request.once('drain', sendMore);
          else request.end();
        };
        sendMore();
      });
      expect(answer).toEqual({ status: 413, body: expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }) });

      const declared = await uploadTo(api, `/assets/media/${asset.uid}/files/big`, {
        bytes: randomBytes(65_537),
        type: 'image/png',
        token: admin,
      });
      expectErrorBody(declared, 413, 'PAYLOAD_TOO_LARGE');
      expect(await api.found<MediaAssetBody>(`/assets/media/${asset.uid}`, admin)).toEqual(asset);
      expect(await storedFiles(mediaDir)).toEqual(before);
    });

    it('refuses a type off the allow-list with 415, and an upload without a type', async () => {
      const asset = await newAsset();
      expectErrorBody(
        await uploadTo(api, `/assets/media/${asset.uid}/files/page`, {
          bytes: Buffer.from('<h1>hi</h1>'),
          type: 'text/html',
          token: admin,
        }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expectErrorBody(
        await uploadTo(api, `/assets/media/${asset.uid}/files/page`, { bytes: PNG, token: admin }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expect(await api.found<MediaAssetBody>(`/assets/media/${asset.uid}`, admin)).toEqual(asset);
    });

    it('serves an SVG as an attachment, sandboxed, never sniffed', async () => {
      const asset = await newAsset();
      const uploaded = await uploadTo(api, `/assets/media/${asset.uid}/files/vector`, { bytes: SVG, type: 'image/svg+xml', token: admin });
      expect(uploaded.status).toBe(200);
      const served = await inject(api, 'GET', pathOf(uploaded.body.files.vector.uri));
      expect(served.status).toBe(200);
      expect(served.headers).toEqual(
        expect.objectContaining({
          'content-type': 'image/svg+xml',
          'content-disposition': 'attachment',
          'content-security-policy': "default-src 'none'; sandbox",
          'x-content-type-options': 'nosniff',
        }),
      );
    });

    it('serves a file only as a type it was uploaded as: any other is 404, and a malformed one 400, not 500', async () => {
      const asset = await newAsset();
      const bytes = randomBytes(512);
      const uploaded = await uploadTo(api, `/assets/media/${asset.uid}/files/sound`, { bytes, type: 'audio/ogg', token: admin });
      expect(uploaded.status).toBe(200);
      const digest = sha256(bytes);
      expect((await inject(api, 'GET', `/media/audio/ogg/${digest}`)).status).toBe(200);
      expect((await inject(api, 'GET', `/media/AUDIO/Ogg/${digest}`)).headers['content-type']).toBe('audio/ogg');
      // On the allow-list (audio/*, image/*), but not what these bytes were uploaded as.
      for (const type of ['audio/mpeg', 'image/png', 'image/svg+xml']) {
        expectErrorBody(await inject(api, 'GET', `/media/${type}/${digest}`), 404, 'NOT_FOUND');
        expect((await inject(api, 'HEAD', `/media/${type}/${digest}`)).status).toBe(404);
      }
      // A list of types that a browser may read as text/html, and a header split.
      for (const [type, subtype] of [
        ['audio', 'x,text%2Fhtml'],
        ['audio', 'ogg%0D%0AX-Injected:%201'],
        ['audio', 'ogg;%20charset=utf-8'],
        ['text%2Fhtml', 'ogg'],
        ['audio', 'x'.repeat(128)],
      ]) {
        const response = await inject(api, 'GET', `/media/${type}/${subtype}/${digest}`);
        expectValidationError(response, type === 'audio' ? 'subtype' : 'type');
        expect(response.headers['x-injected']).toBeUndefined();
      }
      // The same bytes uploaded as another type are served as that one too, and a type that can run
      // script goes out as an attachment.
      const asXml = await uploadTo(api, `/assets/media/${asset.uid}/files/vector`, { bytes, type: 'image/svg+xml', token: admin });
      expect(asXml.status).toBe(200);
      const served = await inject(api, 'GET', `/media/image/svg+xml/${digest}`);
      expect({ status: served.status, disposition: served.headers['content-disposition'] }).toEqual({
        status: 200,
        disposition: 'attachment',
      });
    });

    it('answers Range with 206, an unsatisfiable one with 416, If-None-Match with 304, and HEAD without bytes', async () => {
      const asset = await newAsset();
      const bytes = randomBytes(10_000);
      const uploaded = await uploadTo(api, `/assets/media/${asset.uid}/files/replay`, {
        bytes,
        type: 'application/octet-stream',
        token: admin,
      });
      const path = pathOf(uploaded.body.files.replay.uri);
      const etag = `"${sha256(bytes)}"`;

      const part = await inject(api, 'GET', path, { headers: { range: 'bytes=100-199' } });
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe('bytes 100-199/10000');
      expect(part.raw.equals(bytes.subarray(100, 200))).toBe(true);
      const tail = await inject(api, 'GET', path, { headers: { range: 'bytes=-10' } });
      expect(tail.status).toBe(206);
      expect(tail.raw.equals(bytes.subarray(9990))).toBe(true);
      const open = await inject(api, 'GET', path, { headers: { range: 'bytes=9000-' } });
      expect(open.raw.equals(bytes.subarray(9000))).toBe(true);

      const past = await inject(api, 'GET', path, { headers: { range: 'bytes=10000-' } });
      expectErrorBody(past, 416, 'RANGE_NOT_SATISFIABLE');
      expect(past.headers['content-range']).toBe('bytes */10000');

      // A Range for another version of the file (If-Range) gets the whole file.
      const stale = await inject(api, 'GET', path, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
      expect(stale.status).toBe(200);
      expect(stale.raw.length).toBe(10_000);

      const revalidated = await inject(api, 'GET', path, { headers: { 'if-none-match': etag } });
      expect(revalidated.status).toBe(304);
      expect(revalidated.raw.length).toBe(0);
      expect(revalidated.headers.etag).toBe(etag);
      expect((await inject(api, 'GET', path, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);

      const head = await inject(api, 'HEAD', path);
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe('10000');
      expect(head.raw.length).toBe(0);

      expect((await inject(api, 'GET', `/media/application/octet-stream/${'0'.repeat(64)}`)).status).toBe(404);
      expect((await inject(api, 'GET', `/media/text/html/${sha256(bytes)}`)).status).toBe(404);
      expectValidationError(await inject(api, 'GET', '/media/image/png/not-a-digest'), 'sha256');
    });

    it("refuses a player's upload with 403 and reads nothing", async () => {
      const asset = await newAsset();
      const player = await api.newPlayer();
      expectErrorBody(
        await uploadTo(api, `/assets/media/${asset.uid}/files/icon`, { bytes: PNG, type: 'image/png', token: player.token }),
        403,
        'FORBIDDEN',
      );
      expectErrorBody(
        await inject(api, 'PUT', `/assets/media/${asset.uid}/files/icon`, { payload: PNG, headers: { 'content-type': 'image/png' } }),
        401,
        'UNAUTHORIZED',
      );
      expectErrorBody(
        await inject(api, 'DELETE', `/assets/media/${asset.uid}/files/default`, { headers: { authorization: `jwt ${player.token}` } }),
        403,
        'FORBIDDEN',
      );
      expect(await api.found<MediaAssetBody>(`/assets/media/${asset.uid}`, admin)).toEqual(asset);
    });

    it('stores identical bytes once; deleting one variant leaves the other served; the sweep removes bytes nobody refers to', async () => {
      const first = await newAsset('first');
      const second = await newAsset('second');
      const bytes = randomBytes(2048);
      const one = await uploadTo(api, `/assets/media/${first.uid}/files/icon`, { bytes, type: 'image/webp', token: admin });
      const two = await uploadTo(api, `/assets/media/${second.uid}/files/icon`, { bytes, type: 'image/webp', token: admin });
      expect(two.body.files.icon.uri).toBe(one.body.files.icon.uri);
      expect((await storedFiles(mediaDir)).blobs.filter((name) => name === sha256(bytes))).toHaveLength(1);

      const removed = await inject(api, 'DELETE', `/assets/media/${first.uid}/files/icon`, {
        headers: { authorization: `jwt ${admin}`, 'if-match': `"${one.body.version}"` },
      });
      expect(removed.status).toBe(200);
      expect(Object.keys(removed.body.files)).toEqual(['default']);
      await api.app.get(MediaSweeper).sweepOnce();
      const stillServed = await inject(api, 'GET', pathOf(two.body.files.icon.uri));
      expect(stillServed.status).toBe(200);
      expect(stillServed.raw.equals(bytes)).toBe(true);

      // The last variant naming the bytes goes through the JSON route: an external file replaces it.
      const replaced = await api.put<MediaAssetBody>(
        `/assets/media/${second.uid}`,
        {
          files: { default: second.files.default, icon: { mimetype: 'image/webp', name: 'x.webp', uri: 'https://cdn.example.com/x.webp' } },
        },
        { token: admin },
      );
      expect(replaced.status).toBe(200);
      expect(replaced.body.files.icon).toEqual(expect.objectContaining({ size: null, sha256sum: null, version: 1 }));
      const report = await api.app.get(MediaSweeper).sweepOnce();
      expect(report.unreferencedBlobs).toBeGreaterThanOrEqual(1);
      expect((await inject(api, 'GET', pathOf(two.body.files.icon.uri))).status).toBe(404);
      expect((await storedFiles(mediaDir)).blobs).not.toContain(sha256(bytes));
    });

    it('removes variants: 404 for one that is not there, 409 for the default, and a stale If-Match is 409', async () => {
      const asset = await newAsset();
      const auth = { authorization: `jwt ${admin}` };
      expectErrorBody(await inject(api, 'DELETE', `/assets/media/${asset.uid}/files/nothing`, { headers: auth }), 404, 'NOT_FOUND');
      expectErrorBody(await inject(api, 'DELETE', `/assets/media/${asset.uid}/files/default`, { headers: auth }), 409, 'CONFLICT');
      expectValidationError(
        await inject(api, 'DELETE', `/assets/media/${asset.uid}/files/${'x'.repeat(65)}`, { headers: auth }),
        'variant',
      );
      const uploaded = await uploadTo(api, `/assets/media/${asset.uid}/files/icon`, {
        bytes: PNG,
        type: 'image/png',
        token: admin,
        headers: { 'if-match': '"0"' },
      });
      expect(uploaded.status).toBe(200);
      expectErrorBody(
        await uploadTo(api, `/assets/media/${asset.uid}/files/icon`, {
          bytes: PNG,
          type: 'image/png',
          token: admin,
          headers: { 'if-match': '"0"' },
        }),
        409,
        'VERSION_CONFLICT',
      );
      expectErrorBody(
        await inject(api, 'DELETE', `/assets/media/${asset.uid}/files/icon`, { headers: { ...auth, 'if-match': '"0"' } }),
        409,
        'VERSION_CONFLICT',
      );
      expectErrorBody(
        await uploadTo(api, `/assets/media/${crypto.randomUUID()}/files/icon`, { bytes: PNG, type: 'image/png', token: admin }),
        404,
        'NOT_FOUND',
      );
    });

    it('keeps external URIs on the JSON routes, but refuses a hand-written URI of the store', async () => {
      const asset = await newAsset();
      const forged = await api.put(
        `/assets/media/${asset.uid}`,
        { files: { default: { mimetype: 'image/png', name: 'a.png', uri: `https://game.example.com/media/image/png/${sha256(PNG)}` } } },
        { token: admin },
      );
      expectValidationError(forged, 'files.default.uri');
    });

    it('has no direct uploads without an S3 store: 409', async () => {
      const asset = await newAsset();
      const answer = await api.post(
        `/assets/media/${asset.uid}/files/default/uploads`,
        { mimetype: 'image/png', name: 'a.png', sha256sum: sha256(PNG), size: PNG.length },
        { token: admin },
      );
      expectErrorBody(answer, 409, 'DIRECT_UPLOAD_UNAVAILABLE');
    });
  });

  describe('uploads that stop half-way (MEDIA_UPLOAD_TTL=2)', () => {
    let api: TestApp;
    let admin: string;
    let mediaDir: string;

    beforeAll(async () => {
      mediaDir = await mkdtemp(join(tmpdir(), 'media-e2e-'));
      api = await TestApp.start({ MEDIA_DIR: mediaDir, MEDIA_UPLOAD_TTL: '2', MEDIA_SWEEP_INTERVAL: '0' }, { listen: true });
      admin = await api.signIn('admin');
    });

    afterAll(async () => {
      await api.close();
      await rm(mediaDir, { recursive: true, force: true });
    });

    /** Sends the first `bytes` of an upload over a socket of its own; then `finish` sends the rest, `abandon` closes the socket. */
    function startUpload(path: string, bytes: Buffer) {
      const request = httpRequest(`${api.baseUrl}${path}`, {
        method: 'PUT',
        headers: { authorization: `jwt ${admin}`, 'content-type': 'application/octet-stream' },
      });
      const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: { code: string } }>((resolve, reject) => {
        request.on('response', (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }),
          );
        });
        request.on('error', reject);
      });
      // The service closing the socket of an upload it gave up on: the end of everything it held for it.
      const closed = new Promise<void>((resolve) => request.on('socket', (socket) => socket.once('close', () => resolve())));
      request.write(bytes);
      return { answer, closed, abandon: () => request.destroy(), finish: (rest: Buffer) => request.end(rest) };
    }

    async function newAsset(): Promise<MediaAssetBody> {
      return api.created<MediaAssetBody>(
        '/assets/media',
        { name: 'Replay', files: { default: { mimetype: 'image/png', name: 'a.png', uri: 'https://cdn.example.com/a.png' } } },
        admin,
      );
    }

    it('answers a client that stops sending 408 once MEDIA_UPLOAD_TTL has passed, closes its connection and keeps nothing', async () => {
      const asset = await newAsset();
      const upload = startUpload(`/assets/media/${asset.uid}/files/replay`, randomBytes(300_000));

      const answer = await upload.answer;
      expect(answer).toEqual({
        status: 408,
        headers: expect.objectContaining({ connection: 'close' }),
        body: expect.objectContaining({ code: 'REQUEST_TIMEOUT' }),
      });
      await upload.closed;
      expect(await storedFiles(mediaDir)).toEqual({ blobs: [], temporaries: [] });
      expect(await api.found<MediaAssetBody>(`/assets/media/${asset.uid}`, admin)).toEqual(asset);
    });

    it('keeps nothing of an upload whose client goes away mid-stream, and takes the next one whole', async () => {
      const asset = await newAsset();
      const upload = startUpload(`/assets/media/${asset.uid}/files/replay`, randomBytes(300_000));
      upload.answer.catch(() => undefined);
      // Once the service has the first bytes (its temporary file exists), the client vanishes.
      while ((await storedFiles(mediaDir)).temporaries.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      upload.abandon();
      while ((await storedFiles(mediaDir)).temporaries.length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await api.found<MediaAssetBody>(`/assets/media/${asset.uid}`, admin)).toEqual(asset);

      // Over a socket, each piece of the body is freed once it is on disk: what is stored is still what was sent.
      const bytes = randomBytes(2_000_000);
      const whole = startUpload(`/assets/media/${asset.uid}/files/replay?sha256=${sha256(bytes)}`, bytes.subarray(0, 1_000_000));
      whole.finish(bytes.subarray(1_000_000));
      const answer = await whole.answer;
      expect(answer.status).toBe(200);
      const stored = (answer.body as unknown as MediaAssetBody).files.replay;
      expect(stored).toEqual(expect.objectContaining({ sha256sum: sha256(bytes), size: bytes.length }));
      expect((await inject(api, 'GET', pathOf(stored.uri))).raw.equals(bytes)).toBe(true);
      expect(await storedFiles(mediaDir)).toEqual({ blobs: [sha256(bytes)], temporaries: [] });
    });
  });

  describe('private files (MEDIA_PUBLIC=false)', () => {
    let api: TestApp;
    let mediaDir: string;

    beforeAll(async () => {
      mediaDir = await mkdtemp(join(tmpdir(), 'media-e2e-'));
      api = await TestApp.start({ MEDIA_DIR: mediaDir, MEDIA_PUBLIC: 'false', MEDIA_SWEEP_INTERVAL: '0' });
    });

    afterAll(async () => {
      await api.close();
      await rm(mediaDir, { recursive: true, force: true });
    });

    it('serves files to signed-in users only, cacheable privately', async () => {
      const admin = await api.signIn('admin');
      const asset = await api.created<MediaAssetBody>(
        '/assets/media',
        { name: 'private', files: { default: { mimetype: 'image/png', name: 'a.png', uri: 'https://cdn.example.com/a.png' } } },
        admin,
      );
      const uploaded = await uploadTo(api, `/assets/media/${asset.uid}/files/default`, { bytes: PNG, type: 'image/png', token: admin });
      const path = pathOf(uploaded.body.files.default.uri);
      expectErrorBody(await inject(api, 'GET', path), 401, 'UNAUTHORIZED');
      const player = await api.newPlayer();
      const served = await inject(api, 'GET', path, { headers: { authorization: `jwt ${player.token}` } });
      expect(served.status).toBe(200);
      expect(served.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    });
  });

  describe('in an S3-compatible store (s3rver)', () => {
    const S3_PORT = 3871;
    let s3: S3rver;
    let s3Dir: string;
    let api: TestApp;
    let admin: string;

    beforeAll(async () => {
      s3Dir = await mkdtemp(join(tmpdir(), 'media-s3-'));
      s3 = new S3rver({
        port: S3_PORT,
        address: '127.0.0.1',
        silent: true,
        directory: s3Dir,
        configureBuckets: [{ name: 'game-media', configs: [] }],
      });
      await s3.run();
      api = await TestApp.start({
        MEDIA_S3_BUCKET: 'game-media',
        MEDIA_S3_ENDPOINT: `http://127.0.0.1:${S3_PORT}`,
        MEDIA_S3_ACCESS_KEY_ID: 'S3RVER',
        MEDIA_S3_SECRET_ACCESS_KEY: 'S3RVER',
        MEDIA_SWEEP_INTERVAL: '0',
      });
      admin = await api.signIn('admin');
    });

    afterAll(async () => {
      await api.close();
      await s3.close();
      await rm(s3Dir, { recursive: true, force: true });
    });

    async function newAsset(): Promise<MediaAssetBody> {
      return api.created<MediaAssetBody>(
        '/assets/media',
        { name: 'S3 art', files: { default: { mimetype: 'image/png', name: 'a.png', uri: 'https://cdn.example.com/a.png' } } },
        admin,
      );
    }

    async function startDirectUpload(asset: MediaAssetBody, bytes: Buffer, announced = bytes) {
      const started = await api.post<{ uploadId: string; url: string; method: string; expiresAt: string }>(
        `/assets/media/${asset.uid}/files/bundle/uploads`,
        { mimetype: 'application/zip', name: 'dlc.zip', sha256sum: sha256(announced), size: announced.length },
        { token: admin },
      );
      expect(started.status).toBe(201);
      expect(started.body.method).toBe('PUT');
      const sent = await fetch(started.body.url, { method: 'PUT', body: bytes });
      expect(sent.status).toBe(200);
      return started.body;
    }

    it('streams an upload to the bucket and serves it back', async () => {
      const asset = await newAsset();
      const bytes = randomBytes(30_000);
      const uploaded = await uploadTo(api, `/assets/media/${asset.uid}/files/default`, {
        bytes,
        type: 'image/png',
        token: admin,
        headers: { 'content-digest': contentDigest(bytes) },
      });
      expect(uploaded.status).toBe(200);
      const served = await inject(api, 'GET', pathOf(uploaded.body.files.default.uri));
      expect(served.raw.equals(bytes)).toBe(true);
      const part = await inject(api, 'GET', pathOf(uploaded.body.files.default.uri), { headers: { range: 'bytes=5-9' } });
      expect(part.status).toBe(206);
      expect(part.raw.equals(bytes.subarray(5, 10))).toBe(true);
    });

    it('attaches a direct upload once the service has checked its bytes in the store', async () => {
      const asset = await newAsset();
      const bytes = randomBytes(50_000);
      const upload = await startDirectUpload(asset, bytes);

      const completed = await api.post<MediaAssetBody>(
        `/assets/media/${asset.uid}/files/bundle/uploads/${upload.uploadId}/complete`,
        undefined,
        { token: admin },
      );
      expect(completed.status).toBe(200);
      expect(completed.body.files.bundle).toEqual(
        expect.objectContaining({ mimetype: 'application/zip', name: 'dlc.zip', sha256sum: sha256(bytes), size: bytes.length }),
      );
      expect((await inject(api, 'GET', pathOf(completed.body.files.bundle.uri))).raw.equals(bytes)).toBe(true);
      // Completed once: the upload is gone.
      expectErrorBody(
        await api.post(`/assets/media/${asset.uid}/files/bundle/uploads/${upload.uploadId}/complete`, undefined, { token: admin }),
        404,
        'NOT_FOUND',
      );
      expect(await api.countRows('media_uploads')).toBe(0);
    });

    it('refuses a completed upload whose bytes are not the ones announced, and keeps nothing', async () => {
      const asset = await newAsset();
      const announced = randomBytes(1000);
      const blobsBefore = await api.countRows('media_blobs');
      const upload = await startDirectUpload(asset, randomBytes(1000), announced);

      const refused = await api.post(`/assets/media/${asset.uid}/files/bundle/uploads/${upload.uploadId}/complete`, undefined, {
        token: admin,
      });
      expectErrorBody(refused, 400, 'DIGEST_MISMATCH');
      expect(await api.found<MediaAssetBody>(`/assets/media/${asset.uid}`, admin)).toEqual(asset);
      expect(await api.countRows('media_uploads')).toBe(0);
      expect(await api.countRows('media_blobs')).toBe(blobsBefore);
    });

    it('says when nothing was sent yet (409), and refuses a type off the list or a size past the limit', async () => {
      const asset = await newAsset();
      const started = await api.post<{ uploadId: string }>(
        `/assets/media/${asset.uid}/files/bundle/uploads`,
        { mimetype: 'application/zip', name: 'dlc.zip', sha256sum: sha256(PNG), size: PNG.length },
        { token: admin },
      );
      expectErrorBody(
        await api.post(`/assets/media/${asset.uid}/files/bundle/uploads/${started.body.uploadId}/complete`, undefined, { token: admin }),
        409,
        'CONFLICT',
      );
      expectErrorBody(
        await api.post(
          `/assets/media/${asset.uid}/files/bundle/uploads`,
          { mimetype: 'text/html', name: 'a.html', sha256sum: sha256(PNG), size: 10 },
          { token: admin },
        ),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expectErrorBody(
        await api.post(
          `/assets/media/${asset.uid}/files/bundle/uploads`,
          { mimetype: 'application/zip', name: 'a.zip', sha256sum: sha256(PNG), size: 60 * 1024 * 1024 },
          { token: admin },
        ),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });
  });
});
