import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Bytes a store received into a temporary object, with what they were found to be. */
export interface ReceivedFile {
  /** The temporary object's key in its store. */
  key: string;
  /** Lower-case hex SHA-256 of the bytes. */
  sha256: string;
  size: number;
}

/** How much an upload may bring, and for how long. */
export interface ReceiveLimits {
  maxBytes: number;
  timeoutMs: number;
}

/**
 * Whose a source's chunks are. `disposable`: the upload's alone, as a request body's are (Node copies
 * each from the socket into memory of its own), so a store may free each chunk once it is stored.
 * `shared`: the caller may still read them (a seed's bytes).
 */
export type SourceChunks = 'disposable' | 'shared';

/** The upload brought more than `ReceiveLimits.maxBytes`; nothing was kept. */
export class FileTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the file is larger than ${maxBytes} bytes`);
  }
}

/** The upload took longer than `ReceiveLimits.timeoutMs`; nothing was kept. */
export class UploadTimedOut extends Error {}

/** The client went away before the upload ended; nothing was kept. */
export class UploadAborted extends Error {
  constructor() {
    super('the client closed the connection before the upload ended');
  }
}

/**
 * Where media files live, content-addressed: a file is the blob of its SHA-256, kept once however many
 * variants refer to it. Writes go to a temporary object first (`receive`), which becomes the blob only
 * when the caller `keep`s it, holding the digest's lock (MediaBlobsRepository): a crash never leaves a
 * partial file under a digest, and a sweep never deletes a blob an upload is keeping.
 */
export abstract class MediaStore {
  /** Streams `source` into a temporary object, hashing and counting it, within `limits`; on any failure nothing is left. */
  abstract receive(source: NodeJS.ReadableStream, limits: ReceiveLimits, chunks?: SourceChunks): Promise<ReceivedFile>;
  /** Makes a received file the blob of its digest; a blob already there is kept, and the temporary object goes. */
  abstract keep(received: ReceivedFile): Promise<void>;
  /** Removes a temporary object (gone already is fine). */
  abstract discard(key: string): Promise<void>;
  /** The blob's size, or undefined when the store has no such blob. */
  abstract size(sha256: string): Promise<number | undefined>;
  /** The blob's bytes, all or `start` to `end` inclusive. */
  abstract open(sha256: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream>;
  /** Removes a blob (gone already is fine). */
  abstract remove(sha256: string): Promise<void>;
  /** The digest of every blob stored. */
  abstract blobs(): AsyncIterable<string>;
  /** Temporary objects last written before `before`: uploads that were interrupted, or abandoned. */
  abstract staleTemporaries(before: Date): AsyncIterable<string>;
  /** Direct uploads: only stores clients can write to themselves (S3) have them. */
  readonly direct?: DirectUploads;
}

/** Uploads a client sends straight to the store, with a presigned URL. */
export interface DirectUploads {
  /** The temporary object of a direct upload. */
  keyOf(uploadUid: string): string;
  /** A URL the client PUTs the bytes to, valid `seconds`. */
  presign(key: string, seconds: number): Promise<string>;
  /** What the client sent, read back from the store (hashed), or undefined when nothing is there yet. */
  inspect(key: string, maxBytes: number): Promise<ReceivedFile | undefined>;
}

/**
 * The bytes of an upload on their way to the store: hashed and counted as they pass, refused past
 * `maxBytes` (FileTooLarge) or once `timeoutMs` has gone by (UploadTimedOut), without ever holding
 * more than a chunk.
 */
export class MeteredBytes extends Transform {
  private readonly hash = createHash('sha256');
  private readonly timer: NodeJS.Timeout;
  size = 0;

  constructor(private readonly limits: ReceiveLimits) {
    super();
    this.timer = setTimeout(
      () => this.destroy(new UploadTimedOut(`the upload took longer than ${limits.timeoutMs / 1000} s`)),
      limits.timeoutMs,
    );
    this.timer.unref();
    this.once('close', () => clearTimeout(this.timer));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limits.maxBytes) return done(new FileTooLarge(this.limits.maxBytes));
    this.hash.update(chunk);
    done(null, chunk);
  }

  /** The digest of everything that passed; call once the stream has ended. */
  digest(): string {
    return this.hash.digest('hex');
  }
}

/**
 * Sends `source` through `metered` into `destination`. The source is piped rather than pipelined:
 * pipeline() destroys every stream on a failure, and destroying a request destroys the socket that
 * its answer (a 413) has to go back on.
 */
export async function meterInto(source: NodeJS.ReadableStream, metered: MeteredBytes, destination: NodeJS.WritableStream): Promise<void> {
  const request = source as NodeJS.ReadableStream & { complete?: boolean };
  const closed = () => {
    if (request.complete === false) metered.destroy(new UploadAborted());
  };
  const failed = (error: Error) => metered.destroy(error);
  source.once('close', closed);
  source.once('error', failed);
  source.pipe(metered);
  try {
    await pipeline(metered, destination);
  } finally {
    source.unpipe(metered);
    source.off('close', closed);
    source.off('error', failed);
  }
}

/** Blob keys fan out over 256 folders (or prefixes) by their first two hex digits. */
export const blobPath = (sha256: string) => `${sha256.slice(0, 2)}/${sha256}`;
