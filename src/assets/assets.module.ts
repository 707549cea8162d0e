import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MediaAsset } from './media-asset.entity.js';
import { MediaAssetsController } from './media-assets.controller.js';
import { MediaAssetsService } from './media-assets.service.js';
import { TextAsset } from './text-asset.entity.js';
import { TextAssetsController } from './text-assets.controller.js';
import { TextAssetsService } from './text-assets.service.js';

/** Media assets (files by variant) and text assets (strings by language): catalog data. */
@Module({
  imports: [TypeOrmModule.forFeature([MediaAsset, TextAsset])],
  controllers: [MediaAssetsController, TextAssetsController],
  providers: [MediaAssetsService, TextAssetsService],
  exports: [MediaAssetsService, TextAssetsService],
})
export class AssetsModule {}
