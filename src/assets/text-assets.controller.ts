import { Body, Controller, Delete, Get, Headers, HttpCode, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AdminOnly } from '../common/admin.guard.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import type { ListQuery } from '../common/list-query.js';
import { CountDto } from '../common/record.dto.js';
import { ApiErrors, ApiListQuery, ApiUidParam, IfMatch, ListQueryParam, UidParam } from '../common/route.decorators.js';
import { expectedVersion } from '../common/versions.js';
import { CreateTextAssetDto } from './dto/create-text-asset.dto.js';
import { ResolvedTextDto } from './dto/resolved-text.dto.js';
import { UpdateTextAssetDto } from './dto/update-text-asset.dto.js';
import { TextAsset } from './text-asset.entity.js';
import { TEXT_ASSET_FIELDS, TextAssetsService } from './text-assets.service.js';
import { DEFAULT_TEXT_KEY, isLanguageTag, parseAcceptLanguage } from './text-language.js';

const LIST_ADDITION = 'The list parameters are an addition to the interface document, which lists none here.';

@ApiTags('text assets')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('assets/text')
export class TextAssetsController {
  constructor(private readonly assets: TextAssetsService) {}

  @ApiOperation({ summary: 'List text assets', description: LIST_ADDITION })
  @ApiListQuery(TEXT_ASSET_FIELDS)
  @ApiOkResponse({ type: [TextAsset] })
  @ApiErrors(400)
  @Get()
  findAll(@ListQueryParam(TEXT_ASSET_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<TextAsset[]> {
    return this.assets.findAll(list, caller);
  }

  @ApiOperation({ summary: 'Create a text asset (admins)' })
  @ApiCreatedResponse({ type: TextAsset })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Post()
  create(@Body() body: CreateTextAssetDto, @CurrentCaller() caller: Caller): Promise<TextAsset> {
    return this.assets.create(body, caller);
  }

  @ApiOperation({ summary: 'Count text assets', description: LIST_ADDITION })
  @ApiListQuery(TEXT_ASSET_FIELDS)
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400)
  @Get('count')
  async count(@ListQueryParam(TEXT_ASSET_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.assets.count(list, caller) };
  }

  @ApiOperation({ summary: 'Find a text asset by id' })
  @ApiUidParam('id', 'text asset')
  @ApiOkResponse({ type: TextAsset, description: 'The text asset, with `ETag: "<version>"`.' })
  @ApiErrors(400, 404)
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<TextAsset> {
    return this.assets.findOne(id, caller);
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
  @ApiQuery({
    name: 'lang',
    required: false,
    description: 'A BCP 47 language tag; when given, Accept-Language is not consulted.',
    schema: { type: 'string', example: 'pt-BR' },
  })
  @ApiHeader({ name: 'Accept-Language', required: false, description: 'e.g. `pt-BR, pt;q=0.9, en;q=0.5`' })
  @ApiOkResponse({ type: ResolvedTextDto })
  @ApiErrors([400, 'VALIDATION_FAILED: a malformed id or lang.'], 404)
  @Get(':id/resolve')
  async resolve(
    @UidParam() id: string,
    @Query('lang') lang: unknown,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResolvedTextDto> {
    if (lang !== undefined && (typeof lang !== 'string' || !isLanguageTag(lang))) {
      throw badRequest('lang must be one BCP 47 language tag, such as en or pt-BR', [
        { field: 'lang', message: 'must be a BCP 47 language tag' },
      ]);
    }
    const preferences = lang !== undefined ? [lang] : parseAcceptLanguage(acceptLanguage);
    const resolved = await this.assets.resolve(id, preferences, caller);
    void reply.header('Vary', 'Accept-Language');
    if (resolved.language !== DEFAULT_TEXT_KEY) void reply.header('Content-Language', resolved.language);
    return resolved;
  }

  /** Merges the given fields; `text`, when sent, replaces the whole map. State the version you read to be safe. */
  @ApiOperation({ summary: 'Update a text asset (admins)' })
  @ApiUidParam('id', 'text asset')
  @ApiOkResponse({ type: TextAsset })
  @ApiErrors(400, 403, 404, 409)
  @AdminOnly()
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateTextAssetDto, @IfMatch() ifMatch?: string): Promise<TextAsset> {
    return this.assets.update(id, body, expectedVersion(body.version, ifMatch));
  }

  @ApiOperation({ summary: 'Delete a text asset (admins)' })
  @ApiUidParam('id', 'text asset')
  @ApiNoContentResponse({ description: 'Deleted; no body.' })
  @ApiErrors(400, 403, 404)
  @AdminOnly()
  @HttpCode(204)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.assets.remove(id);
  }
}
