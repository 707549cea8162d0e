import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { MediaConfig } from '../config/environment.js';
import {
  blobPath,
  type DirectUploads,
  FileTooLarge,
  MediaStore,
  meterInto,
  MeteredBytes,
  type ReceivedFile,
  type ReceiveLimits,
} from './media-store.js';

const BLOBS = 'blobs/';
const TEMPORARY = 'tmp/';
const DIRECT = 'uploads/';
/** S3's smallest multipart part; an upload in flight holds at most `QUEUE` of them in memory. */
const PART_BYTES = 5 * 1024 * 1024;
const QUEUE = 2;

const isNotFound = (error: unknown) =>
  error instanceof NotFound || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404);

/**
 * Media files in a bucket of an S3-compatible store: `blobs/ab/abcd…` by digest, streamed uploads in
 * `tmp/`, direct (presigned) uploads in `uploads/`. An object appears only once written whole (a
 * multipart upload completes, or a PUT ends), and a received file becomes a blob by a server-side copy,
 * so a blob's key never names partial bytes. Incomplete multipart uploads a crash leaves are the
 * bucket's to expire (a lifecycle rule: docs/SCALING.md).
 */
export class S3MediaStore extends MediaStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  override readonly direct: DirectUploads;

  constructor(config: NonNullable<MediaConfig['s3']>) {
    super();
    this.bucket = config.bucket;
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      credentials: config.credentials,
      forcePathStyle: config.forcePathStyle,
      // Checksums only where S3 requires them: the SDK's default (since 3.729) streams uploads as
      // aws-chunked with a trailing CRC, which many S3-compatible stores do not read. The service checks
      // every upload's SHA-256 itself.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.direct = {
      keyOf: (uploadUid) => `${DIRECT}${uploadUid}`,
      presign: (key, seconds) => getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: seconds }),
      inspect: (key, maxBytes) => this.inspect(key, maxBytes),
    };
  }

  async receive(source: NodeJS.ReadableStream, limits: ReceiveLimits): Promise<ReceivedFile> {
    const key = `${TEMPORARY}${randomUUID()}`;
    const metered = new MeteredBytes(limits);
    const body = new PassThrough();
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_BYTES,
      queueSize: QUEUE,
    });
    try {
      await Promise.all([meterInto(source, metered, body), upload.done()]);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      await this.discard(key);
      throw error;
    }
    return { key, sha256: metered.digest(), size: metered.size };
  }

  async keep(received: ReceivedFile): Promise<void> {
    if ((await this.size(received.sha256)) === undefined) {
      await this.client.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: this.keyOf(received.sha256), CopySource: `${this.bucket}/${received.key}` }),
      );
    }
    await this.discard(received.key);
  }

  async discard(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async size(sha256: string): Promise<number | undefined> {
    return this.sizeOf(this.keyOf(sha256));
  }

  async open(sha256: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream> {
    const answer = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(sha256), Range: range && `bytes=${range.start}-${range.end}` }),
    );
    return answer.Body as NodeJS.ReadableStream;
  }

  async remove(sha256: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(sha256) }));
  }

  async *blobs(): AsyncIterable<string> {
    for await (const object of this.list(BLOBS)) yield object.key.slice(object.key.lastIndexOf('/') + 1);
  }

  async *staleTemporaries(before: Date): AsyncIterable<string> {
    for (const prefix of [TEMPORARY, DIRECT]) {
      for await (const object of this.list(prefix)) if (object.modified < before) yield object.key;
    }
  }

  private async *list(prefix: string): AsyncIterable<{ key: string; modified: Date }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key) yield { key: object.Key, modified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private async sizeOf(key: string): Promise<number | undefined> {
    try {
      return (await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }))).ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Reads a direct upload back from the store, hashing it: the client's word is not the digest. */
  private async inspect(key: string, maxBytes: number): Promise<ReceivedFile | undefined> {
    const size = await this.sizeOf(key);
    if (size === undefined) return undefined;
    if (size > maxBytes) throw new FileTooLarge(maxBytes);
    const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const metered = new MeteredBytes({ maxBytes, timeoutMs: 15 * 60_000 });
    await meterInto(answer.Body as NodeJS.ReadableStream, metered, new PassThrough().resume());
    return { key, sha256: metered.digest(), size: metered.size };
  }

  private keyOf(sha256: string): string {
    return `${BLOBS}${blobPath(sha256)}`;
  }
}
