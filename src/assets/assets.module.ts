import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module.js';
import { MediaAssetsController } from './media-assets.controller.js';
import { MediaAssetsRepository } from './media-assets.repository.js';
import { MediaAssetsService } from './media-assets.service.js';
import { MediaFileUploadsService } from './media-file-uploads.service.js';
import { TextAssetsController } from './text-assets.controller.js';
import { TextAssetsRepository } from './text-assets.repository.js';
import { TextAssetsService } from './text-assets.service.js';

/** Media assets (files by variant) and text assets (strings by language): catalog data. */
@Module({
  imports: [MediaModule],
  controllers: [MediaAssetsController, TextAssetsController],
  providers: [MediaAssetsService, MediaFileUploadsService, MediaAssetsRepository, TextAssetsService, TextAssetsRepository],
})
export class AssetsModule {}
