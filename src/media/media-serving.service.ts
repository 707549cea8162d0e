import { HttpStatus, Injectable, Logger } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, badRequest, ErrorCode, unauthorized } from '../common/errors.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig, MediaConfig } from '../config/environment.js';
import { MediaStore } from './media-store.js';
import { isAllowedType, SHA256_HEX } from './upload-headers.js';
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

/**
 * Serving uploaded files by their content-addressed URL (`/media/<type>/<subtype>/<sha256>`), from the
 * store alone: no database round trip. The URL names the bytes and the type they are served as; a type
 * off the allow-list is never served, and types that can run script go out as attachments (serving.ts).
 */
@Injectable()
export class MediaServingService {
  private readonly media: MediaConfig;

  constructor(
    private readonly store: MediaStore,
    @InjectConfig() config: AppConfig,
  ) {
    this.media = config.media;
  }

  /** The file at this URL, for this caller: 401 when files are not public and nobody signed in, 404 when there is none. */
  async find(mediaType: string, sha256: string, caller: Caller | undefined): Promise<ServedFile> {
    if (!this.media.public && !caller) throw unauthorized('media files are served to signed-in users: send "Authorization: jwt <token>"');
    if (!SHA256_HEX.test(sha256))
      throw badRequest('sha256 must be 64 lower-case hexadecimal characters', [{ field: 'sha256', message: 'not a SHA-256 digest' }]);
    const type = mediaType.toLowerCase();
    const size = isAllowedType(type, this.media.types) ? await this.size(sha256) : undefined;
    if (size === undefined) throw new ApiException(HttpStatus.NOT_FOUND, ErrorCode.NOT_FOUND, `no media file ${mediaType}/${sha256}`);
    return { sha256, size, headers: fileHeaders(type, sha256, this.media.public) };
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
