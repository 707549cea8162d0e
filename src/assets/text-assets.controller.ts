import { Body, Controller, Get, Headers, HttpCode, Query, Res } from '@nestjs/common';
import { Delete, Post, Put } from '../audit/audited-routes.js';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import type { CountDto } from '../common/record.dto.js';
import { CatalogDeleteDocs, CatalogUpdateDocs, CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors, ApiUidParam, IfMatch, ListQueryParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { recordUpdate } from '../common/versions.js';
import { CreateTextAssetDto } from './dto/create-text-asset.dto.js';
import { ResolveTextQuery } from './dto/resolve-text-query.js';
import { ResolvedTextDto } from './dto/resolved-text.dto.js';
import { UpdateTextAssetDto } from './dto/update-text-asset.dto.js';
import { ASSET_LIST_ADDITION } from './media-assets.controller.js';
import { TextAsset } from './text-asset.entity.js';
import { TextAssetsService } from './text-assets.service.js';
import { DEFAULT_TEXT_KEY, parseAcceptLanguage } from './text-language.js';

@ApiTags('text assets')
@ApiSecurity('jwt')
@ApiErrors(401)
@AuditedRecord(TextAssetsService)
@Controller('assets/text')
export class TextAssetsController {
  constructor(private readonly assets: TextAssetsService) {}

  @ListDocs(TextAsset, 'List text assets', ASSET_LIST_ADDITION)
  @Get()
  findAll(@ListQueryParam(TextAsset) list: ListQuery, @CurrentCaller() caller: Caller): Promise<TextAsset[]> {
    return this.assets.findAll(list, caller);
  }

  @FindDocs(TextAsset, 'text asset')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<TextAsset> {
    return this.assets.findOne(id, caller);
  }

  @CountDocs('Count text assets', ASSET_LIST_ADDITION)
  @Get('count')
  async count(@ListQueryParam(TextAsset) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.assets.count(list, caller) };
  }

  @CatalogUpdateDocs(
    TextAsset,
    'text asset',
    'Merges the given fields; `text`, when sent, replaces the whole map. State the version you read to be safe.',
  )
  @AdminOnly()
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateTextAssetDto, @IfMatch() ifMatch?: string): Promise<TextAsset> {
    const { fields, expectedVersion } = recordUpdate(id, body, ifMatch);
    return this.assets.update(id, fields, expectedVersion);
  }

  @CatalogDeleteDocs('text asset', 204)
  @AdminOnly()
  @HttpCode(204)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.assets.remove(id);
  }

  @ApiOperation({ summary: 'Create a text asset (admins)' })
  @RecordResponse(TextAsset, { status: 201 })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Post()
  create(@Body() body: CreateTextAssetDto, @CurrentCaller() caller: Caller): Promise<TextAsset> {
    return this.assets.create(body, caller);
  }

  /** An addition to the interface document, for game clients: the text in the player's language. */
  @ApiOperation({
    summary: "Resolve a text asset in the reader's language",
    description:
      'Picks the text for `lang`, or else for the languages of `Accept-Language` in order of preference: ' +
      'the exact tag (case does not matter), then ever shorter forms of it (pt-BR, then pt), then the next ' +
      'preferred language; when none is there, the `default` text. The stored record is not changed. ' +
      'The answer carries `Content-Language` when a language matched, and `Vary: Accept-Language`.',
  })
  @ApiUidParam('id', 'text asset')
  @ApiHeader({ name: 'Accept-Language', required: false, description: 'e.g. `pt-BR, pt;q=0.9, en;q=0.5`' })
  @ApiOkResponse({
    type: ResolvedTextDto,
    headers: {
      'Content-Language': {
        description: 'The language of the text, when one matched (not for the default text).',
        schema: { type: 'string' },
      },
      Vary: { description: '`Accept-Language`: the answer depends on it.', schema: { type: 'string', example: 'Accept-Language' } },
    },
  })
  @ApiErrors([400, 'VALIDATION_FAILED: a malformed id or lang.'], 404)
  @Get(':id/resolve')
  async resolve(
    @UidParam() id: string,
    // Typed `string` though it may be absent: so reflected, the document lists it before the query, as it
    // always has (generated clients keep their parameter order).
    @Headers('Accept-Language') acceptLanguage: string,
    @Query() { lang }: ResolveTextQuery,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResolvedTextDto> {
    const preferences = lang !== undefined ? [lang] : parseAcceptLanguage(acceptLanguage);
    const resolved = await this.assets.resolve(id, preferences, caller);
    void reply.header('Vary', 'Accept-Language');
    if (resolved.language !== DEFAULT_TEXT_KEY) void reply.header('Content-Language', resolved.language);
    return resolved;
  }
}
