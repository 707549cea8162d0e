import { Module } from '@nestjs/common';
import { MediaFileHolders } from '../media/media-file-holders.js';
import { MediaFileUploadsService } from '../media/media-file-uploads.service.js';
import { MediaModule } from '../media/media.module.js';
import { MediaAssetsController } from './media-assets.controller.js';
import { MediaAssetsRepository } from './media-assets.repository.js';
import { MediaAssetsService } from './media-assets.service.js';
import { TextAssetsController } from './text-assets.controller.js';
import { TextAssetsRepository } from './text-assets.repository.js';
import { TextAssetsService } from './text-assets.service.js';

/** Media assets (files by variant) and text assets (strings by language): catalog data. */
@Module({
  imports: [MediaModule],
  controllers: [MediaAssetsController, TextAssetsController],
  providers: [
    MediaAssetsService,
    MediaAssetsRepository,
    // The uploads of media/ attach their files to the media assets.
    { provide: MediaFileHolders, useExisting: MediaAssetsRepository },
    MediaFileUploadsService,
    TextAssetsService,
    TextAssetsRepository,
  ],
})
export class AssetsModule {}
