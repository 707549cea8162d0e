import { applyDecorators, type Type } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CountDto } from './record.dto.js';
import { ApiErrors, ApiUidParam, NEXT_SKIP_HEADER, RecordResponse } from './route.decorators.js';

/**
 * The documentation of the routes every resource serves alike (docs/CONTRACT.md sections 1 and 2). Each
 * controller declares its routes itself, verb, path and handler, so that a reader finds every route in
 * its file; these only spare it the repeated OpenAPI lines.
 */

const article = (noun: string) => (/^[aeiou]/i.test(noun) ? 'an' : 'a');

/** `GET /<resource>`: a page of the records the caller may see. */
export const ListDocs = (entity: Type, summary: string, description?: string) =>
  applyDecorators(ApiOperation({ summary, description }), ApiOkResponse({ type: [entity], headers: NEXT_SKIP_HEADER }), ApiErrors(400));

/** `GET /<resource>/count`: how many of them match. */
export const CountDocs = (summary: string, description?: string) =>
  applyDecorators(ApiOperation({ summary, description }), ApiOkResponse({ type: CountDto }), ApiErrors(400));

/** `GET /<resource>/{id}`: one record, with its ETag. */
export const FindDocs = (entity: Type, name: string) =>
  applyDecorators(
    ApiOperation({ summary: `Find ${article(name)} ${name} by id` }),
    ApiUidParam('id', name),
    RecordResponse(entity, { description: `The ${name}, with \`ETag: "<version>"\`.` }),
    ApiErrors(400, 404),
  );

/** `PUT /<resource>/{id}` of catalog data: an admin's versioned merge. */
export const CatalogUpdateDocs = (entity: Type, name: string, description?: string) =>
  applyDecorators(
    ApiOperation({
      summary: `Update ${article(name)} ${name} (admins)`,
      description: description ?? 'Merges the given fields. State the version you read (body or If-Match) to be safe.',
    }),
    ApiUidParam('id', name),
    RecordResponse(entity),
    ApiErrors(400, 403, 404, 409),
  );

/** `DELETE /<resource>/{id}` of catalog data, answered 200 or 204 as the interface document says. */
export const CatalogDeleteDocs = (name: string, status: 200 | 204, options: { summary?: string; conflict?: string } = {}) =>
  applyDecorators(
    ApiOperation({ summary: options.summary ?? `Delete ${article(name)} ${name} (admins)` }),
    ApiUidParam('id', name),
    (status === 204 ? ApiNoContentResponse : ApiOkResponse)({ description: 'Deleted; no body.' }),
    ApiErrors(400, 403, 404, ...(options.conflict ? [[409, options.conflict] as [409, string]] : [])),
  );
