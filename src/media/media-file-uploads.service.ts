import { HttpStatus, Injectable } from '@nestjs/common';
import { ApiException, badRequest, conflict, ErrorCode, notFound } from '../common/errors.js';
import type { Transaction } from '../database/record.repository.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig, MediaConfig } from '../config/environment.js';
import { MediaBlobsRepository } from './media-blobs.repository.js';
import { storageUnavailable } from './media-serving.service.js';
import { FileTooLarge, MediaStore, type ReceivedFile, type SourceChunks, UploadAborted, UploadTimedOut } from './media-store.js';
import { MediaUploadsRepository } from './media-uploads.repository.js';
import type { StreamedBody } from './streamed-body.js';
import { expectedDigest, isAllowedType, mediaTypeOf, uploadName } from './upload-headers.js';
import type { CreateDirectUploadDto, DirectUploadDto } from './dto/direct-upload.dto.js';
import { type MediaFileHolder, MediaFileHolders } from './media-file-holders.js';
import { storedFileUri, VARIANT_KEY, withoutVariant, withUploadedFile } from './media-files.js';

/** What an upload request says besides its bytes. */
export interface UploadRequest {
  contentDigest: string | undefined;
  contentDisposition: string | undefined;
  sha256: string | undefined;
  name: string | undefined;
  ifMatchVersion: number | undefined;
}

export const tooLarge = (maxBytes: number) =>
  new ApiException(
    HttpStatus.PAYLOAD_TOO_LARGE,
    ErrorCode.PAYLOAD_TOO_LARGE,
    `the file is larger than MEDIA_MAX_BYTES (${maxBytes} bytes); nothing was kept`,
  );

const digestMismatch = (expected: string, actual: string) =>
  new ApiException(
    HttpStatus.BAD_REQUEST,
    ErrorCode.DIGEST_MISMATCH,
    `the bytes received have SHA-256 ${actual}, not ${expected} as the client said; nothing was kept`,
  );

/**
 * Files uploaded to a media asset's variants: the bytes go to the media store, checked against the
 * digest the client states, stored once per digest, and the variant's file object names them. The
 * blob is kept and the asset changed in one transaction holding the digest's lock, so that the sweep
 * never deletes bytes a variant is about to refer to (MediaSweeper). The routes are the media assets'
 * (assets/media-assets.controller.ts), whose module provides this service with its MediaFileHolders.
 */
@Injectable()
export class MediaFileUploadsService<T extends MediaFileHolder = MediaFileHolder> {
  private readonly media: MediaConfig;

  constructor(
    private readonly assets: MediaFileHolders<T>,
    private readonly blobs: MediaBlobsRepository,
    private readonly uploads: MediaUploadsRepository,
    private readonly store: MediaStore,
    @InjectConfig() config: AppConfig,
  ) {
    this.media = config.media;
  }

  /** `PUT /assets/media/{id}/files/{variant}`: the body streamed to the store, then attached. */
  async upload(uid: string, variant: string, body: StreamedBody, request: UploadRequest): Promise<T> {
    checkVariant(variant);
    const mimetype = this.allowedType(body.contentType);
    const expected = expectedDigest(request.contentDigest, request.sha256);
    const name = uploadName(request.name, request.contentDisposition, variant);
    if (body.contentLength !== undefined && body.contentLength > this.media.maxBytes) throw tooLarge(this.media.maxBytes);
    // Before reading a byte: an upload to an asset that is not there reads nothing.
    await this.assets.findOne(uid, undefined);
    if (!body.stream) throw badRequest('the body must hold the file', [{ field: 'body', message: 'empty' }]);

    const received = await this.receive(body.stream, body.chunks);
    if (expected !== undefined && expected !== received.sha256) {
      await this.store.discard(received.key).catch(() => undefined);
      throw digestMismatch(expected, received.sha256);
    }
    return this.attach(uid, variant, { mimetype, name, received }, request.ifMatchVersion).catch(async (error: unknown) => {
      await this.store.discard(received.key).catch(() => undefined);
      throw error;
    });
  }

  /** `DELETE /assets/media/{id}/files/{variant}`: the variant goes; its bytes stay while another refers to them. */
  removeVariant(uid: string, variant: string, expectedVersion: number | undefined): Promise<T> {
    checkVariant(variant);
    if (variant === 'default') {
      throw conflict(ErrorCode.CONFLICT, 'the default variant cannot be removed: every media asset has one (upload another over it)');
    }
    return this.assets.transaction(async (transaction) => {
      const current = await this.assets.lockOne(transaction, uid, undefined);
      if (!Object.hasOwn(current.files, variant)) throw notFound(`media asset ${uid} has no variant`, variant);
      const updated = await this.assets.updateVersioned(
        uid,
        { files: withoutVariant(current.files, variant) },
        expectedVersion,
        transaction,
      );
      await this.blobs.keepReferences(transaction, uid, Object.keys(updated.files));
      return updated;
    });
  }

  /** `POST …/uploads`: a presigned URL the client sends the bytes to, straight to the S3 store. */
  async createDirectUpload(uid: string, variant: string, body: CreateDirectUploadDto): Promise<DirectUploadDto> {
    checkVariant(variant);
    const direct = this.store.direct;
    if (!direct) {
      throw conflict(
        ErrorCode.DIRECT_UPLOAD_UNAVAILABLE,
        'direct uploads need an S3-compatible store (MEDIA_S3_BUCKET): upload with PUT /assets/media/{id}/files/{variant}',
      );
    }
    const mimetype = this.allowedType(body.mimetype);
    if (body.size > this.media.maxBytes) throw tooLarge(this.media.maxBytes);
    await this.assets.findOne(uid, undefined);
    const expiresAt = new Date(Date.now() + this.media.uploadTtlSeconds * 1000);
    const upload = await this.uploads.insert({
      assetUid: uid,
      variant,
      mimetype,
      name: body.name,
      sha256: body.sha256sum.toLowerCase(),
      size: body.size,
      expiresAt,
    });
    try {
      const url = await direct.presign(direct.keyOf(upload.uid), this.media.uploadTtlSeconds);
      return { uploadId: upload.uid, url, method: 'PUT', expiresAt: expiresAt.toISOString() };
    } catch (error) {
      throw storageUnavailable(error);
    }
  }

  /**
   * `POST …/uploads/{uploadId}/complete`: the bytes the client sent to the store are read back and
   * hashed; only bytes of the size and digest it announced are attached. Refused bytes are deleted
   * with the upload, which the client then starts again.
   */
  async completeDirectUpload(uid: string, variant: string, uploadId: string, expectedVersion: number | undefined): Promise<T> {
    checkVariant(variant);
    const direct = this.store.direct;
    if (!direct) throw notFound('direct upload', uploadId);
    const upload = await this.uploads.find(uploadId, uid, variant);
    if (!upload) throw notFound('direct upload', uploadId);
    const key = direct.keyOf(upload.uid);
    let received: ReceivedFile | undefined;
    try {
      received = await direct.inspect(key, this.media.maxBytes);
    } catch (error) {
      if (error instanceof FileTooLarge) {
        await this.forgetUpload(upload.uid, key);
        throw tooLarge(this.media.maxBytes);
      }
      throw storageUnavailable(error);
    }
    if (!received) throw conflict(ErrorCode.CONFLICT, `nothing was uploaded to upload ${uploadId} yet: PUT the bytes to its url first`);
    if (received.sha256 !== upload.sha256 || received.size !== upload.size) {
      await this.forgetUpload(upload.uid, key);
      throw new ApiException(
        HttpStatus.BAD_REQUEST,
        ErrorCode.DIGEST_MISMATCH,
        `the store holds ${received.size} bytes with SHA-256 ${received.sha256}, not the ${upload.size} bytes with ` +
          `SHA-256 ${upload.sha256} announced; nothing was kept: start a new upload`,
      );
    }
    return this.attach(uid, variant, { mimetype: upload.mimetype, name: upload.name, received }, expectedVersion, upload.uid);
  }

  private async forgetUpload(uploadUid: string, key: string): Promise<void> {
    await this.store.discard(key).catch(() => undefined);
    await this.uploads.transaction((transaction) => this.uploads.remove(transaction, uploadUid));
  }

  /**
   * Keeps the received bytes as the blob of their digest and makes the variant name them, in one
   * transaction holding the digest's lock (taken before the asset's row, as the sweep takes it alone).
   */
  private attach(
    uid: string,
    variant: string,
    file: { mimetype: string; name: string; received: ReceivedFile },
    expectedVersion: number | undefined,
    directUploadUid?: string,
  ): Promise<T> {
    const { sha256, size } = file.received;
    return this.assets.transaction(async (transaction: Transaction) => {
      await this.blobs.lockDigest(transaction, sha256);
      const current = await this.assets.lockOne(transaction, uid, undefined);
      await this.keep(file.received);
      await this.blobs.recordBlob(transaction, sha256, size);
      const now = await this.assets.transactionTime(transaction);
      const uri = storedFileUri(this.media.baseUrl, file.mimetype, sha256);
      const files = withUploadedFile(
        current.files,
        variant,
        { mimetype: file.mimetype, name: file.name, uri, sha256sum: sha256, size },
        now,
      );
      const updated = await this.assets.updateVersioned(uid, { files }, expectedVersion, transaction);
      await this.blobs.refer(transaction, uid, variant, sha256);
      if (directUploadUid) await this.uploads.remove(transaction, directUploadUid);
      return updated;
    });
  }

  private async receive(stream: NodeJS.ReadableStream, chunks: SourceChunks): Promise<ReceivedFile> {
    try {
      const limits = { maxBytes: this.media.maxBytes, timeoutMs: this.media.uploadTtlSeconds * 1000 };
      return await this.store.receive(stream, limits, chunks);
    } catch (error) {
      if (error instanceof FileTooLarge) throw tooLarge(this.media.maxBytes);
      if (error instanceof UploadTimedOut) {
        throw new ApiException(
          HttpStatus.REQUEST_TIMEOUT,
          ErrorCode.REQUEST_TIMEOUT,
          `${error.message} (MEDIA_UPLOAD_TTL); nothing was kept`,
        );
      }
      if (error instanceof UploadAborted) throw badRequest(error.message);
      throw storageUnavailable(error);
    }
  }

  private async keep(received: ReceivedFile): Promise<void> {
    try {
      await this.store.keep(received);
    } catch (error) {
      throw storageUnavailable(error);
    }
  }

  private allowedType(contentType: string | undefined): string {
    const type = mediaTypeOf(contentType);
    if (!type || !isAllowedType(type, this.media.types)) {
      throw new ApiException(
        HttpStatus.UNSUPPORTED_MEDIA_TYPE,
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        `${type ?? 'a file without a media type'} may not be uploaded: the allowed types are ${this.media.types.join(', ')}`,
      );
    }
    return type;
  }
}

function checkVariant(variant: string): void {
  if (!VARIANT_KEY.test(variant)) {
    throw badRequest('variant must be 1 to 64 letters, digits, _, . or -', [{ field: 'variant', message: 'not a variant key' }]);
  }
}
