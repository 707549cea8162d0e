import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { LocalMediaStore } from './local-media-store.js';
import { MediaBlobsRepository } from './media-blobs.repository.js';
import { MediaServingService } from './media-serving.service.js';
import { MediaStore } from './media-store.js';
import { MediaSweeper } from './media-sweeper.service.js';
import { MediaUploadsRepository } from './media-uploads.repository.js';
import { MediaController } from './media.controller.js';

/** The store of uploaded files (local disk or S3), its bookkeeping, its sweep, and serving its files. */
export async function createMediaStore(config: AppConfig): Promise<MediaStore> {
  if (config.media.s3) {
    // Loaded only when configured: the AWS SDK would otherwise hold resident memory in every instance
    // that keeps its files on disk (docs/PERFORMANCE.md, issue 32).
    const { S3MediaStore } = await import('./s3-media-store.js');
    return new S3MediaStore(config.media.s3);
  }
  const store = new LocalMediaStore(config.media.directory);
  await store.prepare();
  return store;
}

@Module({
  controllers: [MediaController],
  providers: [
    { provide: MediaStore, inject: [APP_CONFIG], useFactory: createMediaStore },
    MediaBlobsRepository,
    MediaUploadsRepository,
    MediaServingService,
    MediaSweeper,
  ],
  exports: [MediaStore, MediaBlobsRepository, MediaUploadsRepository],
})
export class MediaModule {}
