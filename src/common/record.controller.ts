import { applyDecorators, Body, Delete, Get, HttpCode, Put, type Type } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiSecurity } from '@nestjs/swagger';
import { type Caller, CurrentCaller, OptionalAuth } from './auth.decorators.js';
import type { ListQuery } from './list-query.js';
import { AdminOnly } from './policy.js';
import { CountDto, type RecordBodyDto, type WritableFields } from './record.dto.js';
import type { RecordEntity } from './record.entity.js';
import type { RecordService } from './record.service.js';
import { ApiErrors, ApiUidParam, IfMatch, ListQueryParam, NEXT_SKIP_HEADER, RecordResponse, UidParam } from './route.decorators.js';
import { recordUpdate } from './versions.js';

/**
 * The routes resources share, as factories of controller base classes: list, count and find by id for
 * every resource (RecordController), plus the admins' update and delete for catalog data
 * (CatalogController). Factories rather than generic base classes: the concrete classes they are given
 * keep validation and the OpenAPI schemas, which TypeScript's erased generics would lose
 * (nestjs/nest#6205). A resource's controller extends the class returned and adds its own routes.
 */

export interface RecordRoutesOptions<T> {
  entity: Type<T>;
  /** The record in messages and summaries ("item", "media asset"). */
  name: string;
  plural: string;
  listSummary?: string;
  /** The list and count operations' description. */
  listDescription?: string;
  /** The count route's own summary and description, and whether it serves anonymous callers; false: no count route. */
  count?: false | { summary: string; description: string; optionalAuth: true };
}

export function RecordController<T extends RecordEntity>(options: RecordRoutesOptions<T>) {
  const { entity, name, plural, listDescription } = options;
  const count = options.count === false ? undefined : (options.count ?? { summary: `Count ${plural}`, description: listDescription });

  @ApiSecurity('jwt')
  @ApiErrors(401)
  abstract class RecordRoutes {
    protected constructor(protected readonly service: RecordService<T>) {}

    @ApiOperation({ summary: options.listSummary ?? `List ${plural}`, description: listDescription })
    @ApiOkResponse({ type: [entity], headers: NEXT_SKIP_HEADER })
    @ApiErrors(400)
    @Get()
    findAll(@ListQueryParam(entity) list: ListQuery, @CurrentCaller() caller: Caller): Promise<T[]> {
      return this.service.findAll(list, caller);
    }

    @ApiOperation({ summary: `Find ${article(name)} ${name} by id` })
    @ApiUidParam('id', name)
    @RecordResponse(entity, { description: `The ${name}, with \`ETag: "<version>"\`.` })
    @ApiErrors(400, 404)
    @Get(':id')
    findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<T> {
      return this.service.findOne(id, caller);
    }
  }

  if (!count) return RecordRoutes;

  abstract class CountedRoutes extends RecordRoutes {
    @ApiOperation({ summary: count!.summary, description: count!.description })
    @ApiOkResponse({ type: CountDto })
    @ApiErrors(400)
    @applyDecorators(...(options.count ? [OptionalAuth()] : []))
    @Get('count')
    async count(@ListQueryParam(entity) list: ListQuery, @CurrentCaller() caller: Caller | undefined): Promise<CountDto> {
      return { count: await this.service.count(list, caller) };
    }
  }
  return CountedRoutes;
}

/** What the catalog routes ask of a resource's service beyond the reads. */
export interface CatalogService<T extends RecordEntity, U extends RecordBodyDto> extends RecordService<T> {
  update(uid: string, fields: WritableFields<U>, expectedVersion: number | undefined): Promise<T>;
  remove(uid: string): Promise<void>;
}

export interface CatalogOptions<T, U> extends RecordRoutesOptions<T> {
  /** The update body: a concrete class, so that validation and the OpenAPI schema see it. */
  updateBody: Type<U>;
  /** The update operation's description. */
  updateDescription?: string;
  /** DELETE /{id}: answered 200 or 204 (the interface document says which), with its own summary or 409. */
  remove: { status: 200 | 204; summary?: string; conflict?: string };
}

/** The routes of admin-written catalog data (items, assets, achievement definitions): the reads, update and delete. */
export function CatalogController<T extends RecordEntity, U extends RecordBodyDto>(options: CatalogOptions<T, U>) {
  const { entity, name } = options;
  const RemovedResponse = options.remove.status === 204 ? ApiNoContentResponse : ApiOkResponse;

  abstract class CatalogRoutes extends RecordController(options) {
    protected constructor(protected override readonly service: CatalogService<T, U>) {
      super(service);
    }

    @ApiOperation({
      summary: `Update ${article(name)} ${name} (admins)`,
      description: options.updateDescription ?? 'Merges the given fields. State the version you read (body or If-Match) to be safe.',
    })
    @ApiUidParam('id', name)
    @RecordResponse(entity)
    @ApiErrors(400, 403, 404, 409)
    @AdminOnly()
    @Put(':id')
    update(@UidParam() id: string, @Body() body: U, @IfMatch() ifMatch?: string): Promise<T> {
      const { fields, expectedVersion } = recordUpdate(id, body, ifMatch);
      return this.service.update(id, fields, expectedVersion);
    }

    @ApiOperation({ summary: options.remove.summary ?? `Delete ${article(name)} ${name} (admins)` })
    @ApiUidParam('id', name)
    @RemovedResponse({ description: 'Deleted; no body.' })
    @ApiErrors(400, 403, 404, ...(options.remove.conflict ? [[409, options.remove.conflict] as [409, string]] : []))
    @AdminOnly()
    @HttpCode(options.remove.status)
    @Delete(':id')
    async remove(@UidParam() id: string): Promise<void> {
      await this.service.remove(id);
    }
  }
  // The body's class, which TypeScript's metadata has erased to Object: the validation pipe and the
  // OpenAPI document both read it from here.
  Reflect.defineMetadata('design:paramtypes', [String, options.updateBody, String], CatalogRoutes.prototype, 'update');
  return CatalogRoutes;
}

const article = (noun: string) => (/^[aeiou]/i.test(noun) ? 'an' : 'a');
