import { Body, Controller, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { CatalogController } from '../common/record.controller.js';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors, RecordResponse } from '../common/route.decorators.js';
import { CreateMediaAssetDto } from './dto/create-media-asset.dto.js';
import { MediaFileDto } from './dto/media-file.dto.js';
import { UpdateMediaAssetDto } from './dto/update-media-asset.dto.js';
import { MediaAsset, MediaFile } from './media-asset.entity.js';
import { MediaAssetsService } from './media-assets.service.js';

// The interface document lists no query parameters for these lists; they take the common list rules
// anyway (limit, skip, sort, filters on name, description and the common fields), as every list does.
export const ASSET_LIST_ADDITION = 'The list parameters are an addition to the interface document, which lists none here.';

@ApiTags('media assets')
@ApiExtraModels(MediaFile, MediaFileDto)
@Controller('assets/media')
export class MediaAssetsController extends CatalogController({
  entity: MediaAsset,
  updateBody: UpdateMediaAssetDto,
  name: 'media asset',
  plural: 'media assets',
  listDescription: ASSET_LIST_ADDITION,
  updateDescription:
    'Variants sent unchanged keep their uid, dates and version; changed ones keep their uid and ' +
    'dateCreated and get version + 1; new ones are stamped afresh; variants left out are removed.',
  remove: { status: 204 },
}) {
  constructor(private readonly assets: MediaAssetsService) {
    super(assets);
  }

  @ApiOperation({
    summary: 'Create a media asset (admins)',
    description: 'The service gives every file variant a uid, dateCreated, dateModified and version 0.',
  })
  @RecordResponse(MediaAsset, { status: 201 })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Post()
  create(@Body() body: CreateMediaAssetDto, @CurrentCaller() caller: Caller): Promise<MediaAsset> {
    return this.assets.create(body, caller);
  }
}
