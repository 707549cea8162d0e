import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { cpuMillisecondsOf, memoryOf, sampleMemory } from './processes.js';

/**
 * The media files' scenarios (issue 33): a 1 MB file the service serves from its local store, the same
 * bytes under the same path in a folder that the baseline serves with @fastify/static, and uploads of
 * 50 MB streamed to the local store, one at a time (throughput) and twenty at once (memory), then the
 * same into a bare Fastify route of the baseline that pipes them to disk.
 */

/** The file both servers serve: its path (the same on both) and its entity tag. */
export interface MediaFile {
  path: string;
  etag: string;
}

const json = (token: string) => ({ authorization: `jwt ${token}`, 'content-type': 'application/json' });

export async function createAsset(url: string, adminToken: string, name: string): Promise<string> {
  const response = await fetch(`${url}/assets/media`, {
    method: 'POST',
    headers: json(adminToken),
    body: JSON.stringify({ name, files: { default: { mimetype: 'image/png', name: 'x.png', uri: 'https://cdn.example.com/x.png' } } }),
  });
  if (response.status !== 201) throw new Error(`creating a media asset: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { uid: string }).uid;
}

/** Uploads a 1 MB file to the service and copies it where the baseline serves it from (`staticDir`). */
export async function prepareMediaFile(url: string, adminToken: string, staticDir: string): Promise<MediaFile> {
  const asset = await createAsset(url, adminToken, 'Bench file');
  const bytes = randomBytes(1024 * 1024);
  const uploaded = await fetch(`${url}/assets/media/${asset}/files/default`, {
    method: 'PUT',
    headers: { authorization: `jwt ${adminToken}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  if (uploaded.status !== 200) throw new Error(`uploading the bench file: ${uploaded.status} ${await uploaded.text()}`);
  const file = ((await uploaded.json()) as { files: Record<string, { uri: string; sha256sum: string }> }).files.default;
  const path = new URL(file.uri).pathname;
  const copy = join(staticDir, path.slice('/media/'.length));
  mkdirSync(dirname(copy), { recursive: true });
  writeFileSync(copy, bytes);
  return { path, etag: `"${file.sha256sum}"` };
}

/** What the upload measurement found. */
export interface UploadReport {
  bytesPerUpload: number;
  /** One upload at a time: MB/s (10^6 bytes) of each, from the first byte sent to the answer. */
  sequentialMBps: number[];
  /** The server's CPU time (user + system, every thread) per MB of the one-at-a-time uploads. */
  sequentialCpuMsPerMb: number;
  /** RSS before the first upload: the one-at-a-time uploads may leave it higher than `concurrent.rssBeforeMb`. */
  rssIdleMb: number;
  concurrent: { uploads: number; seconds: number; rssBeforeMb: number; rssPeakMb: number; rssGrowthMb: number; failures: number };
}

/** PUTs `prefix` then `body` (chunked, as a client streaming a file); resolves with the answer's status. */
function streamUpload(url: string, adminToken: string, prefix: Buffer, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const upload = request(url, {
      method: 'PUT',
      headers: { authorization: `jwt ${adminToken}`, 'content-type': 'application/octet-stream' },
    });
    upload.on('error', reject);
    upload.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    upload.write(prefix);
    let offset = 0;
    const chunk = 256 * 1024;
    const more = () => {
      while (offset < body.length) {
        const next = body.subarray(offset, offset + chunk);
        offset += next.length;
        if (!upload.write(next)) return void upload.once('drain', more);
      }
      upload.end();
    };
    more();
  });
}

export async function measureUploads(options: {
  /** Where an upload of `variant` goes. */
  target: (variant: string) => string;
  /** The process whose memory is sampled. */
  pid: number;
  adminToken: string;
  sequential: number;
  concurrent: number;
  log: (message: string) => void;
}): Promise<UploadReport> {
  // 50 MB (10^6) of random bytes, each upload made distinct by a prefix of its own: no two are deduplicated.
  const body = randomBytes(50_000_000 - 16);
  const bytesPerUpload = body.length + 16;
  const { target } = options;

  const rssIdleMb = Math.round(memoryOf(options.pid).rss);
  const sequentialMBps: number[] = [];
  const cpuBefore = cpuMillisecondsOf(options.pid);
  for (let index = 0; index < options.sequential; index++) {
    const started = process.hrtime.bigint();
    const status = await streamUpload(target(`s${index}`), options.adminToken, randomBytes(16), body);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (status !== 200) throw new Error(`a sequential upload answered ${status}`);
    sequentialMBps.push(Number((bytesPerUpload / 1e6 / seconds).toFixed(1)));
  }
  const sequentialCpuMsPerMb = Number(
    ((cpuMillisecondsOf(options.pid) - cpuBefore) / ((options.sequential * bytesPerUpload) / 1e6)).toFixed(2),
  );
  options.log(`  sequential 50 MB uploads: ${sequentialMBps.join(', ')} MB/s, server CPU ${sequentialCpuMsPerMb} ms/MB`);

  const rssBeforeMb = memoryOf(options.pid).rss;
  const sampler = sampleMemory(options.pid, 50);
  const started = process.hrtime.bigint();
  const statuses = await Promise.all(
    Array.from({ length: options.concurrent }, (_, index) => streamUpload(target(`c${index}`), options.adminToken, randomBytes(16), body)),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rssPeakMb = sampler.stop();
  const failures = statuses.filter((status) => status !== 200).length;
  const concurrent = {
    uploads: options.concurrent,
    seconds: Number(seconds.toFixed(1)),
    rssBeforeMb: Math.round(rssBeforeMb),
    rssPeakMb: Math.round(rssPeakMb),
    rssGrowthMb: Math.round(rssPeakMb - rssBeforeMb),
    failures,
  };
  options.log(
    `  ${options.concurrent} concurrent 50 MB uploads in ${concurrent.seconds} s: RSS ${rssIdleMb} before any upload, ${concurrent.rssBeforeMb} → peak ` +
      `${concurrent.rssPeakMb} MB, ${failures} failed`,
  );
  return { bytesPerUpload, rssIdleMb, sequentialMBps, sequentialCpuMsPerMb, concurrent };
}
