import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DurableFile } from './durable-file.js';
import { blobPath, MediaStore, meterInto, MeteredBytes, type ReceivedFile, type ReceiveLimits, type SourceChunks } from './media-store.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Media files on a local disk (or a volume every instance mounts): `blobs/ab/abcd…` by digest, and
 * uploads in progress in `tmp/`. A received file is flushed to disk (fsync) before it is renamed under
 * its digest, and the folder after, so that a crash leaves either the whole blob or none: never a
 * partial file under a digest's name.
 */
export class LocalMediaStore extends MediaStore {
  private readonly blobsDir: string;
  private readonly tmpDir: string;

  constructor(directory: string) {
    super();
    this.blobsDir = join(directory, 'blobs');
    this.tmpDir = join(directory, 'tmp');
  }

  async prepare(): Promise<void> {
    await mkdir(this.blobsDir, { recursive: true });
    await mkdir(this.tmpDir, { recursive: true });
  }

  async receive(source: NodeJS.ReadableStream, limits: ReceiveLimits, chunks: SourceChunks = 'shared'): Promise<ReceivedFile> {
    const key = randomUUID();
    const path = join(this.tmpDir, key);
    const metered = new MeteredBytes(limits);
    try {
      await meterInto(source, metered, new DurableFile(path, chunks));
    } catch (error) {
      await this.discard(key);
      throw error;
    }
    return { key, sha256: metered.digest(), size: metered.size };
  }

  async keep(received: ReceivedFile): Promise<void> {
    const target = this.pathOf(received.sha256);
    if ((await this.size(received.sha256)) !== undefined) return this.discard(received.key);
    await mkdir(dirname(target), { recursive: true });
    await rename(join(this.tmpDir, received.key), target);
    // The rename is durable once the folder that now names the file is.
    const folder = await open(dirname(target), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }

  async discard(key: string): Promise<void> {
    await unlink(join(this.tmpDir, key)).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
  }

  async size(sha256: string): Promise<number | undefined> {
    try {
      return (await stat(this.pathOf(sha256))).size;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  open(sha256: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream> {
    return Promise.resolve(createReadStream(this.pathOf(sha256), range));
  }

  async remove(sha256: string): Promise<void> {
    await unlink(this.pathOf(sha256)).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
  }

  async *blobs(): AsyncIterable<string> {
    for (const folder of await readdir(this.blobsDir)) {
      yield* await readdir(join(this.blobsDir, folder)).catch(() => []);
    }
  }

  async *staleTemporaries(before: Date): AsyncIterable<string> {
    for (const key of await readdir(this.tmpDir)) {
      const modified = await stat(join(this.tmpDir, key)).then(
        (status) => status.mtime,
        () => undefined,
      );
      if (modified && modified < before) yield key;
    }
  }

  private pathOf(sha256: string): string {
    return join(this.blobsDir, blobPath(sha256));
  }
}
