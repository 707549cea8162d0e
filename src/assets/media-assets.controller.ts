import { applyDecorators, Body, Controller, Get, Headers, HttpCode, Param } from '@nestjs/common';
import { Delete, Post, Put } from '../audit/audited-routes.js';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import type { CountDto } from '../common/record.dto.js';
import { CatalogDeleteDocs, CatalogUpdateDocs, CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors, ApiUidParam, IfMatch, ListQueryParam, QueryValue, RecordResponse, UidParam } from '../common/route.decorators.js';
import { expectedVersion, recordUpdate } from '../common/versions.js';
import { type StreamedBody, UploadedBytes } from '../media/streamed-body.js';
import { CreateDirectUploadDto, DirectUploadDto } from '../media/dto/direct-upload.dto.js';
import { CreateMediaAssetDto } from './dto/create-media-asset.dto.js';
import { MediaFileDto } from './dto/media-file.dto.js';
import { UpdateMediaAssetDto } from './dto/update-media-asset.dto.js';
import { MediaAsset, MediaFile } from './media-asset.entity.js';
import { MediaAssetsService } from './media-assets.service.js';
import { MediaFileUploadsService } from '../media/media-file-uploads.service.js';

const FILE_PATH = ':id/files/:variant';

const VariantParam = () =>
  ApiParam({
    name: 'variant',
    description: 'The variant key: `default`, `thumbnail`, `icon.small`... (1 to 64 letters, digits, `_`, `.`, `-`).',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$', example: 'default' },
  });

const UploadDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Upload a file to a media asset (admins)',
      description:
        "The body is the file's bytes, streamed to the media store; `Content-Type` is the file's media type (on " +
        'MEDIA_TYPES, else 415). The service computes the SHA-256 while the bytes arrive: send the one you expect in ' +
        '`Content-Digest: sha-256=:<base64>:` (RFC 9530) or `?sha256=<hex>`, and a mismatch is a 400 that keeps ' +
        'nothing. Past MEDIA_MAX_BYTES the upload is cut off with 413, nothing kept. The variant (new or replaced) ' +
        "then has the service's own content-addressed `uri`, the checked `sha256sum` and the `size`; identical bytes " +
        'are stored once. Versioned like any update (If-Match).',
    }),
    ApiUidParam('id', 'media asset'),
    VariantParam(),
    ApiBody({
      required: true,
      description: "The file's bytes, of its own media type.",
      schema: { type: 'string', format: 'binary' },
    }),
    ApiConsumes('*/*'),
    ApiHeader({
      name: 'Content-Digest',
      required: false,
      description: 'RFC 9530: `sha-256=:<base64 of the 32-byte SHA-256>:`; other algorithms are ignored.',
      schema: { type: 'string', example: 'sha-256=:n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=:' },
    }),
    ApiHeader({
      name: 'Content-Disposition',
      required: false,
      description: 'The file name, as `attachment; filename="icon.png"`, when `?name=` is not given.',
      schema: { type: 'string', example: 'attachment; filename="sword-iron.png"' },
    }),
    ApiQuery({
      name: 'sha256',
      required: false,
      description: 'The SHA-256 the bytes must have, hex (as Content-Digest; both given must agree).',
      schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
    }),
    ApiQuery({
      name: 'name',
      required: false,
      description: 'The file name (default: from Content-Disposition, else the variant key).',
      schema: { type: 'string', minLength: 1, maxLength: 255, example: 'sword-iron.png' },
    }),
    RecordResponse(MediaAsset, { streamsBody: true, description: 'The media asset, the variant naming the stored file.' }),
    ApiErrors(
      [400, 'VALIDATION_FAILED or DIGEST_MISMATCH: bad headers or query, or bytes whose SHA-256 is not the one stated.'],
      403,
      404,
      408,
      409,
      413,
      415,
      [503, 'STORAGE_UNAVAILABLE or DATABASE_UNAVAILABLE: try again.'],
    ),
  );

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
  constructor(
    private readonly assets: MediaAssetsService,
    private readonly uploads: MediaFileUploadsService<MediaAsset>,
  ) {}

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

  @UploadDocs()
  @AdminOnly()
  @Put(FILE_PATH)
  upload(
    @UidParam() id: string,
    @Param('variant') variant: string,
    @UploadedBytes() body: StreamedBody,
    @Headers('content-digest') contentDigest: string | undefined,
    @Headers('content-disposition') contentDisposition: string | undefined,
    @QueryValue('sha256') sha256: string | undefined,
    @QueryValue('name') name: string | undefined,
    @IfMatch() ifMatch?: string,
  ): Promise<MediaAsset> {
    const ifMatchVersion = expectedVersion(undefined, ifMatch);
    return this.uploads.upload(id, variant, body, { contentDigest, contentDisposition, sha256, name, ifMatchVersion });
  }

  @ApiOperation({
    summary: 'Remove a file variant of a media asset (admins)',
    description: 'The variant goes; its stored bytes stay while another variant refers to them. `default` cannot be removed (409).',
  })
  @ApiUidParam('id', 'media asset')
  @VariantParam()
  @RecordResponse(MediaAsset)
  @ApiErrors(
    400,
    403,
    [404, 'NOT_FOUND: no such media asset, or no such variant.'],
    [409, 'VERSION_CONFLICT, or CONFLICT: the default variant.'],
  )
  @AdminOnly()
  @Delete(FILE_PATH)
  removeVariant(@UidParam() id: string, @Param('variant') variant: string, @IfMatch() ifMatch?: string): Promise<MediaAsset> {
    return this.uploads.removeVariant(id, variant, expectedVersion(undefined, ifMatch));
  }

  @ApiOperation({
    summary: 'Start a direct upload of a large file (admins)',
    description:
      'With an S3-compatible store (MEDIA_S3_BUCKET): a presigned URL to PUT the bytes to, straight to the store, ' +
      'valid MEDIA_UPLOAD_TTL seconds. Then `POST …/uploads/{uploadId}/complete`. Without one: 409 ' +
      'DIRECT_UPLOAD_UNAVAILABLE (upload with PUT instead).',
  })
  @ApiUidParam('id', 'media asset')
  @VariantParam()
  @ApiCreatedResponse({ type: DirectUploadDto })
  @ApiErrors(400, 403, 404, [409, 'DIRECT_UPLOAD_UNAVAILABLE: the service keeps files on its own disk.'], 413, 415)
  @AdminOnly()
  @Post(`${FILE_PATH}/uploads`)
  createDirectUpload(
    @UidParam() id: string,
    @Param('variant') variant: string,
    @Body() body: CreateDirectUploadDto,
  ): Promise<DirectUploadDto> {
    return this.uploads.createDirectUpload(id, variant, body);
  }

  @ApiOperation({
    summary: 'Complete a direct upload (admins)',
    description:
      'The service reads the bytes back from the store and checks their size and SHA-256 against what the upload ' +
      'announced; only then is the file attached to the variant, as an upload with PUT would. Bytes that do not ' +
      'match are deleted with the upload (400 DIGEST_MISMATCH).',
  })
  @ApiUidParam('id', 'media asset')
  @VariantParam()
  @ApiUidParam('uploadId', 'direct upload')
  @HttpCode(200)
  @RecordResponse(MediaAsset)
  @ApiErrors(
    [400, 'VALIDATION_FAILED, or DIGEST_MISMATCH: the bytes in the store are not the ones announced (the upload is gone).'],
    403,
    [404, "NOT_FOUND: no such media asset or upload (completed, expired, or another variant's)."],
    [409, 'VERSION_CONFLICT, or CONFLICT: nothing was sent to the URL yet.'],
    413,
    [503, 'STORAGE_UNAVAILABLE or DATABASE_UNAVAILABLE: try again.'],
  )
  @AdminOnly()
  @Post(`${FILE_PATH}/uploads/:uploadId/complete`)
  completeDirectUpload(
    @UidParam() id: string,
    @Param('variant') variant: string,
    @UidParam('uploadId') uploadId: string,
    @IfMatch() ifMatch?: string,
  ): Promise<MediaAsset> {
    return this.uploads.completeDirectUpload(id, variant, uploadId, expectedVersion(undefined, ifMatch));
  }
}
