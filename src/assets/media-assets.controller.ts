import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { ApiExtraModels, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import type { CountDto } from '../common/record.dto.js';
import { CatalogDeleteDocs, CatalogUpdateDocs, CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors, IfMatch, ListQueryParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { recordUpdate } from '../common/versions.js';
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
@ApiSecurity('jwt')
@ApiErrors(401)
@AuditedRecord(MediaAssetsService)
@Controller('assets/media')
export class MediaAssetsController {
  constructor(private readonly assets: MediaAssetsService) {}

  @ListDocs(MediaAsset, 'List media assets', ASSET_LIST_ADDITION)
  @Get()
  findAll(@ListQueryParam(MediaAsset) list: ListQuery, @CurrentCaller() caller: Caller): Promise<MediaAsset[]> {
    return this.assets.findAll(list, caller);
  }

  @FindDocs(MediaAsset, 'media asset')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<MediaAsset> {
    return this.assets.findOne(id, caller);
  }

  @CountDocs('Count media assets', ASSET_LIST_ADDITION)
  @Get('count')
  async count(@ListQueryParam(MediaAsset) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.assets.count(list, caller) };
  }

  @CatalogUpdateDocs(
    MediaAsset,
    'media asset',
    'Variants sent unchanged keep their uid, dates and version; changed ones keep their uid and ' +
      'dateCreated and get version + 1; new ones are stamped afresh; variants left out are removed.',
  )
  @AdminOnly()
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateMediaAssetDto, @IfMatch() ifMatch?: string): Promise<MediaAsset> {
    const { fields, expectedVersion } = recordUpdate(id, body, ifMatch);
    return this.assets.update(id, fields, expectedVersion);
  }

  @CatalogDeleteDocs('media asset', 204)
  @AdminOnly()
  @HttpCode(204)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.assets.remove(id);
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
