import { type FileHandle, open } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { SourceChunks } from './media-store.js';

type Done = (error?: Error | null) => void;

/**
 * A new file (it must not exist) written from a stream and flushed to disk (fsync) before the stream
 * finishes, so that a rename afterwards publishes whole bytes. With `disposable` chunks, each chunk's
 * memory is given back as soon as it is written: a request body arrives as one fresh 64 KiB buffer per
 * socket read, and left to the garbage collector, twenty uploads at once pile up tens of megabytes of
 * written chunks before the next collection (docs/PERFORMANCE.md, media files).
 */
export class DurableFile extends Writable {
  private file: FileHandle | undefined;

  constructor(
    private readonly path: string,
    private readonly chunks: SourceChunks,
  ) {
    super();
  }

  override _construct(done: Done): void {
    open(this.path, 'wx').then((file) => {
      this.file = file;
      done();
    }, done);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: Done): void {
    writeAll(this.file!, chunk).then(() => {
      if (this.chunks === 'disposable') release(chunk);
      done();
    }, done);
  }

  override _final(done: Done): void {
    this.file!.sync().then(() => done(), done);
  }

  override _destroy(error: Error | null, done: Done): void {
    const file = this.file;
    this.file = undefined;
    if (!file) return done(error);
    file.close().then(
      () => done(error),
      (closing: Error) => done(error ?? closing),
    );
  }
}

async function writeAll(file: FileHandle, chunk: Buffer): Promise<void> {
  // A write may take less than the whole chunk (a signal, a full disk's last bytes).
  for (let offset = 0; offset < chunk.length;) offset += (await file.write(chunk, offset)).bytesWritten;
}

/**
 * Frees a chunk's memory now: detaching its ArrayBuffer (a transfer to length 0) releases the backing
 * store at once, where the garbage collector would take its time. Only a Buffer that is the whole of its
 * own ArrayBuffer, never a slice of a shared pool.
 */
function release(chunk: Buffer): void {
  const memory = chunk.buffer;
  if (memory instanceof ArrayBuffer && chunk.byteOffset === 0 && chunk.byteLength === memory.byteLength) memory.transfer(0);
}
