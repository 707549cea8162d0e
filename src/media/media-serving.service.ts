import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, badRequest, ErrorCode, unauthorized } from '../common/errors.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig, MediaConfig } from '../config/environment.js';
import { LRUCache } from 'lru-cache';
import { MediaBlobsRepository } from './media-blobs.repository.js';
import { MediaStore } from './media-store.js';
import { isAllowedType, MEDIA_TYPE_NAME, SHA256_HEX } from './upload-headers.js';
import { type ByteRange, fileHeaders } from './serving.js';

/** A file the store can serve: its type, size and the headers every answer about it carries. */
export interface ServedFile {
  sha256: string;
  size: number;
  headers: Record<string, string>;
}

const logger = new Logger('MediaStore');

/** The store failed (S3 unreachable, a disk error): logged, and a 503 the client may retry rather than a 500. */
export function storageUnavailable(error: unknown): ApiException {
  logger.warn({ err: error }, 'the media store failed');
  return new ApiException(
    HttpStatus.SERVICE_UNAVAILABLE,
    ErrorCode.STORAGE_UNAVAILABLE,
    'the media store is unavailable: try again shortly',
    {},
    5,
  );
}

/** Types and digests found uploaded together, kept so that a popular file costs no query per request. */
const UPLOADED_PAIRS_MAX = 10_000;

/**
 * Serving uploaded files by their content-addressed URL (`/media/<type>/<subtype>/<sha256>`). The URL
 * names the bytes and the type they are served as, which must be a type they were uploaded as (else
 * any file could be served as any type a browser might render: 404); a type off the allow-list is
 * never served, and types that can run script go out as attachments (serving.ts). A type and digest
 * found together are remembered (they name the same bytes for good), so a file's reads cost the store
 * alone after the first; a variant removed since may serve its URL until its blob is swept.
 */
@Injectable()
export class MediaServingService {
  private readonly media: MediaConfig;
  private readonly uploadedPairs = new LRUCache<string, true>({ max: UPLOADED_PAIRS_MAX });

  constructor(
    private readonly store: MediaStore,
    private readonly blobs: MediaBlobsRepository,
    @InjectConfig() config: AppConfig,
  ) {
    this.media = config.media;
  }

  /**
   * The file at this URL, for this caller: 401 when files are not public and nobody signed in, 400 when
   * the type or digest is malformed, 404 when there is no such file of that type.
   */
  async find(typeName: string, subtypeName: string, sha256: string, caller: Caller | undefined): Promise<ServedFile> {
    if (!this.media.public && !caller) throw unauthorized('media files are served to signed-in users: send "Authorization: jwt <token>"');
    if (!SHA256_HEX.test(sha256))
      throw badRequest('sha256 must be 64 lower-case hexadecimal characters', [{ field: 'sha256', message: 'not a SHA-256 digest' }]);
    for (const [field, name] of [
      ['type', typeName],
      ['subtype', subtypeName],
    ]) {
      if (!MEDIA_TYPE_NAME.test(name))
        throw badRequest(`${field} must be a media type's name (RFC 6838): 1 to 127 of A-Z a-z 0-9 ! # $ & ^ _ . + -`, [
          { field, message: 'not a media type name' },
        ]);
    }
    const type = `${typeName}/${subtypeName}`.toLowerCase();
    const size = isAllowedType(type, this.media.types) && (await this.uploadedAs(sha256, type)) ? await this.size(sha256) : undefined;
    if (size === undefined) throw new ApiException(HttpStatus.NOT_FOUND, ErrorCode.NOT_FOUND, `no media file ${type}/${sha256}`);
    return { sha256, size, headers: fileHeaders(type, sha256, this.media.public) };
  }

  private async uploadedAs(sha256: string, type: string): Promise<boolean> {
    const pair = `${type} ${sha256}`;
    if (this.uploadedPairs.has(pair)) return true;
    const uploaded = await this.blobs.uploadedAs(sha256, type);
    if (uploaded) this.uploadedPairs.set(pair, true);
    return uploaded;
  }

  async open(file: ServedFile, range: ByteRange | undefined): Promise<NodeJS.ReadableStream> {
    try {
      return await this.store.open(file.sha256, range);
    } catch (error) {
      throw storageUnavailable(error);
    }
  }

  private async size(sha256: string): Promise<number | undefined> {
    try {
      return await this.store.size(sha256);
    } catch (error) {
      throw storageUnavailable(error);
    }
  }
}
