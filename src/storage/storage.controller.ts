import { applyDecorators, Body, Controller, Get, HttpCode, Param, type PipeTransform, Query } from '@nestjs/common';
import { Delete, Post, Put } from '../audit/audited-routes.js';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
import { AdminOnly } from '../common/policy.js';
import { CountDto } from '../common/record.dto.js';
import { ApiErrors, BodyNodes, FastifyRouteConfig } from '../common/route.decorators.js';
import { DeleteStorageDto, ReadStorageDto } from './dto/read-storage.dto.js';
import { StorageAcksDto, StorageCollectionsDto, StorageObjectsDto, StoragePageDto } from './dto/storage-answers.dto.js';
import { WriteStorageDto } from './dto/write-storage.dto.js';
import { StorageObject } from './storage-object.entity.js';
import { decodeCursor, encodeCursor, STORAGE_NAME, STORAGE_NAME_RULE } from './storage-rules.js';
import { StorageService } from './storage.service.js';
import { UUID } from '../common/validators.js';

/** What a list's cursor looks like (base64url of a key). */
const CURSOR = /^[A-Za-z0-9_-]{2,172}$/;

/** A collection or key in the path: 1 to 128 of A-Z a-z 0-9 _ . - (400 otherwise). */
class StorageNamePipe implements PipeTransform<string, string> {
  constructor(private readonly name: string) {}
  transform(value: string): string {
    if (!STORAGE_NAME.test(value))
      throw badRequest(`${this.name} must be ${STORAGE_NAME_RULE}`, [{ field: this.name, message: 'malformed' }]);
    return value;
  }
}

function CollectionParam(): ParameterDecorator {
  return Param('collection', new StorageNamePipe('collection'));
}

function KeyParam(): ParameterDecorator {
  return Param('key', new StorageNamePipe('key'));
}

const ApiNameParam = (name: 'collection' | 'key') =>
  ApiParam({ name, schema: { type: 'string', pattern: STORAGE_NAME.source }, description: `The object's ${name}.` });
const ApiOwnerQuery = (description: string) =>
  ApiQuery({ name: 'ownerUid', required: false, schema: { type: 'string', format: 'uuid' }, description });

/** A page's `cursor` (the previous page's) and `limit` (1 to LIMITS.storageBatch). */
const ApiPageQueries = () =>
  // In this order the document lists cursor before limit, as it always has (the generated SDKs keep their signatures).
  applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: LIMITS.storageBatch, default: LIMITS.storageBatch },
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string', pattern: CURSOR.source },
      description: 'The previous page’s cursor.',
    }),
  );

const BATCH_ERRORS: Array<[400 | 403, string]> = [
  [400, 'VALIDATION_FAILED: a malformed batch (names, a value that is not a JSON object, an object named twice).'],
  [403, "FORBIDDEN: another player's storage, NONE set by a player, or a protected object (permissionWrite NONE; storageObject names it)."],
];

/**
 * Cloud save (docs/GUIDE.md, "Cloud save"): players' JSON objects by collection and key, written and
 * deleted in batches that commit whole or not at all, with conditional versions, read as each object's
 * permissions allow. Every route needs a token; the owner is the caller unless an admin names another.
 */
@ApiTags('storage')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('storage')
export class StorageController {
  constructor(private readonly storage: StorageService) {}

  @ApiOperation({
    summary: 'Write storage objects (a batch: all or nothing)',
    description:
      `Up to ${LIMITS.storageBatch} objects, created or replaced, in one database transaction: if any is refused, none is ` +
      'written. A stated `version` makes a write conditional (`*`: only if the object does not exist). Answers each ' +
      "object's new version, in the order of the request, and tells the owner's sockets (`storage.updated`). A body " +
      'holds at most 1 MiB.',
  })
  @ApiOkResponse({ type: StorageAcksDto })
  @ApiErrors(
    ...BATCH_ERRORS,
    [
      409,
      "VERSION_CONFLICT: a stated version does not hold (storageObject names the object and its version now). QUOTA_EXCEEDED: the owner's quota (STORAGE_OBJECTS_PER_OWNER, STORAGE_BYTES_PER_OWNER; a guest's: STORAGE_GUEST_OBJECTS_PER_OWNER, STORAGE_GUEST_BYTES_PER_OWNER) would be passed; `left` says what is left.",
    ],
    [413, 'PAYLOAD_TOO_LARGE: a value is larger than STORAGE_VALUE_MAX_BYTES (the field says which), or the body than 1 MiB.'],
  )
  @BodyNodes('saves')
  @Put()
  async write(@Body() body: WriteStorageDto, @CurrentCaller() caller: Caller): Promise<StorageAcksDto> {
    return { acks: await this.storage.write(caller, body.objects) };
  }

  @ApiOperation({
    summary: 'Read storage objects (a batch)',
    description:
      `Up to ${LIMITS.storageBatch} objects, the caller's unless \`ownerUid\` names another's. Those that do not exist, ` +
      'and those the caller may not read, are simply absent from the answer: NONE objects are read by admins only, OWNER ' +
      'ones by their owner too, PUBLIC ones by every signed-in player.',
  })
  @ApiOkResponse({ type: StorageObjectsDto })
  @ApiErrors(400)
  @HttpCode(200)
  @FastifyRouteConfig({ storedJson: true })
  @Post('read')
  async read(@Body() body: ReadStorageDto, @CurrentCaller() caller: Caller): Promise<StorageObjectsDto> {
    return { objects: await this.storage.read(caller, body.objects) };
  }

  @ApiOperation({
    summary: 'Delete storage objects (a batch: all or nothing)',
    description:
      `Up to ${LIMITS.storageBatch} objects. An object that does not exist is no error, unless a \`version\` was stated. ` +
      "The owner's sockets are told (`storage.updated` with version null).",
  })
  @ApiNoContentResponse({ description: 'Deleted; no body.' })
  @ApiErrors(...BATCH_ERRORS, [409, 'VERSION_CONFLICT: a stated version does not hold, or the object is gone (storageObject names it).'])
  @HttpCode(204)
  @Delete()
  async remove(@Body() body: DeleteStorageDto, @CurrentCaller() caller: Caller): Promise<void> {
    await this.storage.remove(caller, body.objects);
  }

  @ApiOperation({
    summary: "List an owner's collections (admins)",
    description:
      `The collections that hold objects of \`ownerUid\` (the caller's when absent), in name order, with how many objects and ` +
      `bytes each holds, ${LIMITS.storageBatch} at most: go on with \`cursor\` while the answer has one.`,
  })
  @ApiOwnerQuery("Whose collections: the caller's when absent.")
  @ApiPageQueries()
  @ApiOkResponse({ type: StorageCollectionsDto })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Get()
  async collections(@Query() query: Record<string, unknown>, @CurrentCaller() caller: Caller): Promise<StorageCollectionsDto> {
    const { ownerUid, cursor, limit } = listQuery(query);
    const { collections, more } = await this.storage.collectionsOf(ownerUid ?? caller.uid, cursor, limit);
    return { collections, cursor: more ? encodeCursor(collections.at(-1)!.collection) : null };
  }

  @ApiOperation({
    summary: "List an owner's objects in a collection",
    description:
      "The caller's objects unless `ownerUid` names another's (of which a player sees the PUBLIC ones), in key order, " +
      `${LIMITS.storageBatch} at most, and at most LIST_MAX_BYTES of values: go on with \`cursor\` while the answer has one.`,
  })
  @ApiNameParam('collection')
  @ApiOwnerQuery("Whose objects: the caller's when absent.")
  @ApiPageQueries()
  @ApiOkResponse({ type: StoragePageDto })
  @ApiErrors(400)
  @FastifyRouteConfig({ storedJson: true })
  @Get(':collection')
  async list(
    @CollectionParam() collection: string,
    @Query() query: Record<string, unknown>,
    @CurrentCaller() caller: Caller,
  ): Promise<StoragePageDto> {
    const { ownerUid, cursor, limit } = listQuery(query);
    const { objects, more } = await this.storage.page(caller, collection, ownerUid ?? caller.uid, cursor, limit);
    return { objects, cursor: more ? encodeCursor(objects.at(-1)!.key) : null };
  }

  @ApiOperation({ summary: 'Count the objects of a collection (admins)', description: 'Of every owner, or of `ownerUid`.' })
  @ApiNameParam('collection')
  @ApiOwnerQuery('Count only the objects of this owner.')
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Get(':collection/count')
  async count(@CollectionParam() collection: string, @Query() query: Record<string, unknown>): Promise<CountDto> {
    const { ownerUid } = ownerQuery(query);
    return { count: await this.storage.count(collection, ownerUid) };
  }

  /** `count` is not a key this route reads (the route above has it): read such an object with POST /storage/read. */
  @ApiOperation({
    summary: 'Read one storage object, with its version as ETag',
    description: "The caller's unless `ownerUid` names another's. 404 when it does not exist or the caller may not read it.",
  })
  @ApiNameParam('collection')
  @ApiNameParam('key')
  @ApiOwnerQuery("Whose object: the caller's when absent.")
  @ApiOkResponse({
    type: StorageObject,
    headers: { ETag: { required: true, description: 'The object\'s version, quoted (`"9f86…"`).', schema: { type: 'string' } } },
  })
  @FastifyRouteConfig({ sendsETag: true, storedJson: true })
  @ApiErrors(400, 404)
  @Get(':collection/:key')
  findOne(
    @CollectionParam() collection: string,
    @KeyParam() key: string,
    @Query() query: Record<string, unknown>,
    @CurrentCaller() caller: Caller,
  ): Promise<StorageObject> {
    const { ownerUid } = ownerQuery(query);
    return this.storage.findOne(caller, { ownerUid: ownerUid ?? caller.uid, collection, key });
  }
}

/** The query of the one-object routes: `ownerUid` at most. */
function ownerQuery(query: Record<string, unknown>): { ownerUid?: string } {
  return readQuery(query, ['ownerUid']);
}

/** The list's query: `ownerUid`, `cursor` and `limit` (1 to LIMITS.storageBatch). */
function listQuery(query: Record<string, unknown>): { ownerUid?: string; cursor?: string; limit: number } {
  const { ownerUid, cursor, limit } = readQuery(query, ['ownerUid', 'cursor', 'limit']);
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && after === undefined) {
    throw badRequest('cursor must be the cursor of a previous page', [{ field: 'cursor', message: 'not a cursor this service made' }]);
  }
  const count = limit === undefined ? LIMITS.storageBatch : /^\d{1,3}$/.test(limit) ? Number(limit) : NaN;
  if (!(count >= 1 && count <= LIMITS.storageBatch)) {
    throw badRequest(`limit must be an integer from 1 to ${LIMITS.storageBatch}`, [
      { field: 'limit', message: `must be 1 to ${LIMITS.storageBatch}` },
    ]);
  }
  return { ownerUid, cursor: after, limit: count };
}

/** The named parameters, each once, `ownerUid` a uuid (in lower case); anything else is a 400 naming it. */
function readQuery<N extends string>(query: Record<string, unknown>, names: readonly N[]): Partial<Record<N, string>> {
  const unknown = Object.keys(query).find((name) => !(names as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw badRequest(`unknown query parameter "${unknown}": this route takes ${names.join(', ')}`, [
      { field: unknown, message: 'not a parameter of this route' },
    ]);
  }
  const read: Partial<Record<N, string>> = {};
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw badRequest(`${name} must be given once`, [{ field: name, message: 'given more than once' }]);
    read[name] = value;
  }
  const owner = read['ownerUid' as N];
  if (owner !== undefined) {
    if (!UUID.test(owner)) throw badRequest('ownerUid must be a UUID', [{ field: 'ownerUid', message: 'must be a UUID' }]);
    read['ownerUid' as N] = owner.toLowerCase();
  }
  return read;
}
