import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { call, Cluster, waitUntil } from './cluster.js';

/**
 * Uploads to the local media store when an instance dies mid-upload: two instances sharing one
 * DATA_DIR (a shared volume), one killed with SIGKILL while a file streams into it. What it had
 * received must never be served, nor stay on disk once the survivor has swept.
 */
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe('media uploads and crashes', () => {
  let cluster: Cluster;
  let admin: string;

  beforeAll(async () => {
    // The survivor sweeps every second; a temporary file is stale after 3 s (the longest an upload may take here).
    cluster = await Cluster.start(2, { MEDIA_SWEEP_INTERVAL: '1', MEDIA_UPLOAD_TTL: '3' });
    admin = await cluster.signIn('admin');
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('serves nothing of an upload cut by SIGKILL, and the sweep leaves no file of it behind', async () => {
    const [victim, survivor] = cluster.instances;
    const media = join(cluster.dataDirectory, 'media');
    const created = await call(survivor.url, 'POST', '/assets/media', admin, {
      name: 'Replay',
      files: { default: { mimetype: 'image/png', name: 'a.png', uri: 'https://cdn.example.com/a.png' } },
    });
    expect(created.status).toBe(201);
    const asset = created.body as { uid: string; version: number };
    const bytes = randomBytes(8 * 1024 * 1024);
    const half = bytes.length / 2;

    // Half the file, then the instance dies with the connection open.
    const upload = request(`${victim.url}/assets/media/${asset.uid}/files/replay`, {
      method: 'PUT',
      headers: { authorization: `jwt ${admin}`, 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) },
    });
    const ended = new Promise<string>((resolve) => {
      upload.on('error', (error) => resolve(error.message));
      upload.on('response', (response) => resolve(`answered ${response.statusCode}`));
    });
    upload.write(bytes.subarray(0, half));
    await waitUntil(async () => (await filesUnder(join(media, 'tmp'))).length > 0, 10_000);
    victim.process.kill('SIGKILL');
    await victim.exited;
    expect(await ended).not.toMatch(/^answered/);

    const stored = await call(survivor.url, 'GET', `/assets/media/${asset.uid}`, admin);
    expect(stored.body).toEqual(created.body);
    expect((await call(survivor.url, 'GET', `/media/application/octet-stream/${sha256(bytes)}`)).status).toBe(404);
    expect((await call(survivor.url, 'GET', `/media/application/octet-stream/${sha256(bytes.subarray(0, half))}`)).status).toBe(404);
    expect(await filesUnder(join(media, 'blobs'))).toEqual([]);

    // A blob a crash left between its rename and the commit that records it: on disk, in no row.
    const orphan = randomBytes(1000);
    await mkdir(join(media, 'blobs', sha256(orphan).slice(0, 2)), { recursive: true });
    await writeFile(join(media, 'blobs', sha256(orphan).slice(0, 2), sha256(orphan)), orphan);

    const waited = await waitUntil(
      async () => (await filesUnder(join(media, 'tmp'))).length === 0 && (await filesUnder(join(media, 'blobs'))).length === 0,
      30_000,
    );
    console.log(`media: the partial upload and the orphan blob were swept ${waited} ms after the kill`);

    // The same bytes uploaded again, whole, to the survivor: stored and served.
    const again = await fetch(`${survivor.url}/assets/media/${asset.uid}/files/replay?sha256=${sha256(bytes)}`, {
      method: 'PUT',
      headers: { authorization: `jwt ${admin}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(again.status).toBe(200);
    const served = await fetch(`${survivor.url}/media/application/octet-stream/${sha256(bytes)}`);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await filesUnder(join(media, 'blobs'))).toEqual([sha256(bytes)]);
  });
});
