import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { AdminOnly } from '../common/admin.guard.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { CountDto } from '../common/record.dto.js';
import { ApiErrors, ApiListQuery, ApiUidParam, IfMatch, ListQueryParam, UidParam } from '../common/route.decorators.js';
import { expectedVersion } from '../common/versions.js';
import { CreateMediaAssetDto } from './dto/create-media-asset.dto.js';
import { MediaFileDto } from './dto/media-file.dto.js';
import { UpdateMediaAssetDto } from './dto/update-media-asset.dto.js';
import { MediaAsset, MediaFile } from './media-asset.entity.js';
import { MEDIA_ASSET_FIELDS, MediaAssetsService } from './media-assets.service.js';

// The interface document lists no query parameters for these lists; they take the common list rules
// anyway (limit, skip, sort, filters on name, description and the common fields), as every list does.
const LIST_ADDITION = 'The list parameters are an addition to the interface document, which lists none here.';

@ApiTags('media assets')
@ApiSecurity('jwt')
@ApiExtraModels(MediaFile, MediaFileDto)
@ApiErrors(401)
@Controller('assets/media')
export class MediaAssetsController {
  constructor(private readonly assets: MediaAssetsService) {}

  @ApiOperation({ summary: 'List media assets', description: LIST_ADDITION })
  @ApiListQuery(MEDIA_ASSET_FIELDS)
  @ApiOkResponse({ type: [MediaAsset] })
  @ApiErrors(400)
  @Get()
  findAll(@ListQueryParam(MEDIA_ASSET_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<MediaAsset[]> {
    return this.assets.findAll(list, caller);
  }

  @ApiOperation({
    summary: 'Create a media asset (admins)',
    description: 'The service gives every file variant a uid, dateCreated, dateModified and version 0.',
  })
  @ApiCreatedResponse({ type: MediaAsset })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Post()
  create(@Body() body: CreateMediaAssetDto, @CurrentCaller() caller: Caller): Promise<MediaAsset> {
    return this.assets.create(body, caller);
  }

  @ApiOperation({ summary: 'Count media assets', description: LIST_ADDITION })
  @ApiListQuery(MEDIA_ASSET_FIELDS)
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400)
  @Get('count')
  async count(@ListQueryParam(MEDIA_ASSET_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.assets.count(list, caller) };
  }

  @ApiOperation({ summary: 'Find a media asset by id' })
  @ApiUidParam('id', 'media asset')
  @ApiOkResponse({ type: MediaAsset, description: 'The media asset, with `ETag: "<version>"`.' })
  @ApiErrors(400, 404)
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<MediaAsset> {
    return this.assets.findOne(id, caller);
  }

  /** Merges the given fields; `files`, when sent, replaces the whole map. State the version you read to be safe. */
  @ApiOperation({
    summary: 'Update a media asset (admins)',
    description:
      'Variants sent unchanged keep their uid, dates and version; changed ones keep their uid and ' +
      'dateCreated and get version + 1; new ones are stamped afresh; variants left out are removed.',
  })
  @ApiUidParam('id', 'media asset')
  @ApiOkResponse({ type: MediaAsset })
  @ApiErrors(400, 403, 404, 409)
  @AdminOnly()
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateMediaAssetDto, @IfMatch() ifMatch?: string): Promise<MediaAsset> {
    return this.assets.update(id, body, expectedVersion(body.version, ifMatch));
  }

  @ApiOperation({ summary: 'Delete a media asset (admins)' })
  @ApiUidParam('id', 'media asset')
  @ApiNoContentResponse({ description: 'Deleted; no body.' })
  @ApiErrors(400, 403, 404)
  @AdminOnly()
  @HttpCode(204)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.assets.remove(id);
  }
}
