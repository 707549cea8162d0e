import { Body, Controller, Get, HttpCode, Param, type PipeTransform, Query } from '@nestjs/common';
import { Delete, Post, Put } from '../audit/audited-routes.js';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
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
import { type CursorKind, DEFAULT_CURSOR_LIFE_MS, SignedCursors } from '../common/signed-cursors.js';
import { RESERVED_COLLECTIONS, STORAGE_COLLECTION_RULE, STORAGE_NAME, STORAGE_NAME_RULE } from './storage-rules.js';
import { CollectionsQuery, CountQuery, ObjectsQuery, OwnerQuery } from './dto/storage-query.js';
import { StorageService } from './storage.service.js';

/** A collection or key in the path: 1 to 128 of A-Z a-z 0-9 _ . - (400 otherwise), and not a name it may not take. */
class StorageNamePipe implements PipeTransform<string, string> {
  constructor(
    private readonly name: string,
    private readonly reserved: readonly string[] = [],
  ) {}
  transform(value: string): string {
    if (!STORAGE_NAME.test(value) || this.reserved.includes(value)) {
      const rule = this.reserved.length > 0 ? STORAGE_COLLECTION_RULE : STORAGE_NAME_RULE;
      throw badRequest(`${this.name} must be ${rule}`, [{ field: this.name, message: 'malformed' }]);
    }
    return value;
  }
}

/** A collection, or (`listed`) one a list names: not one a fixed route holds (`read`). */
function CollectionParam(listed = false): ParameterDecorator {
  return Param('collection', new StorageNamePipe('collection', listed ? RESERVED_COLLECTIONS : []));
}

function KeyParam(): ParameterDecorator {
  return Param('key', new StorageNamePipe('key'));
}

const ApiNameParam = (name: 'collection' | 'key', reserved: readonly string[] = []) =>
  ApiParam({
    name,
    schema: { type: 'string', pattern: STORAGE_NAME.source, ...(reserved.length > 0 && { not: { enum: [...reserved] } }) },
    description: `The object's ${name}.`,
  });
const CURSOR_ERRORS: [400, string] = [400, 'VALIDATION_FAILED, INVALID_CURSOR (a cursor this service did not make) or CURSOR_EXPIRED.'];
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
  constructor(
    private readonly storage: StorageService,
    private readonly cursors: SignedCursors,
  ) {}

  /** A list's cursor: the name (key or collection) the next page starts after, signed, for an hour (DEFAULT_CURSOR_LIFE_MS). */
  private cursorAfter(kind: CursorKind, name: string): string {
    return this.cursors.sign(kind, name, Date.now() + DEFAULT_CURSOR_LIFE_MS);
  }

  /** The name a list's cursor starts after (400 INVALID_CURSOR or CURSOR_EXPIRED unless this service made it for this list). */
  private nameAfter(kind: CursorKind, cursor: string): string {
    const name = this.cursors.read(kind, cursor);
    if (typeof name !== 'string' || !STORAGE_NAME.test(name)) {
      throw badRequest('cursor must be the cursor of a previous page', [{ field: 'cursor', message: 'not a cursor this service made' }]);
    }
    return name;
  }

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
      `bytes each holds, ${LIMITS.storageBatch} at most: go on with \`cursor\` while the answer has one (signed; it lasts an hour: then 400 CURSOR_EXPIRED).`,
  })
  @ApiOkResponse({ type: StorageCollectionsDto })
  @ApiErrors(CURSOR_ERRORS, 403)
  @AdminOnly()
  @Get()
  async collections(
    @Query() { ownerUid, cursor, limit }: CollectionsQuery,
    @CurrentCaller() caller: Caller,
  ): Promise<StorageCollectionsDto> {
    const after = cursor === undefined ? undefined : this.nameAfter('storage-collections', cursor);
    const { collections, more } = await this.storage.collectionsOf(ownerUid ?? caller.uid, after, limit);
    return { collections, cursor: more ? this.cursorAfter('storage-collections', collections.at(-1)!.collection) : null };
  }

  @ApiOperation({
    summary: "List an owner's objects in a collection",
    description:
      "The caller's objects unless `ownerUid` names another's (of which a player sees the PUBLIC ones), in key order, " +
      `${LIMITS.storageBatch} at most, and at most LIST_MAX_BYTES of values: go on with \`cursor\` while the answer has one (signed; it lasts an hour: then 400 CURSOR_EXPIRED).`,
  })
  @ApiNameParam('collection', RESERVED_COLLECTIONS)
  @ApiOkResponse({ type: StoragePageDto })
  @ApiErrors(CURSOR_ERRORS)
  @FastifyRouteConfig({ storedJson: true })
  @Get(':collection')
  async list(
    @CollectionParam(true) collection: string,
    @Query() { ownerUid, cursor, limit }: ObjectsQuery,
    @CurrentCaller() caller: Caller,
  ): Promise<StoragePageDto> {
    const after = cursor === undefined ? undefined : this.nameAfter('storage-objects', cursor);
    const { objects, more } = await this.storage.page(caller, collection, ownerUid ?? caller.uid, after, limit);
    return { objects, cursor: more ? this.cursorAfter('storage-objects', objects.at(-1)!.key) : null };
  }

  @ApiOperation({
    summary: 'Read one storage object, with its version as ETag',
    description: "The caller's unless `ownerUid` names another's. 404 when it does not exist or the caller may not read it.",
  })
  @ApiNameParam('collection')
  @ApiNameParam('key')
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
    @Query() { ownerUid }: OwnerQuery,
    @CurrentCaller() caller: Caller,
  ): Promise<StorageObject> {
    return this.storage.findOne(caller, { ownerUid: ownerUid ?? caller.uid, collection, key });
  }
}

/**
 * Counts, for admins, under a path of their own: under /storage/{collection}/ every name is a key
 * (an object whose key is `count` is read as any other).
 */
@ApiTags('storage')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('admin/storage')
export class AdminStorageController {
  constructor(private readonly storage: StorageService) {}

  @ApiOperation({ summary: 'Count the objects of a collection (admins)', description: 'Of every owner, or of `ownerUid`.' })
  @ApiNameParam('collection')
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Get(':collection/count')
  async count(@CollectionParam() collection: string, @Query() { ownerUid }: CountQuery): Promise<CountDto> {
    return { count: await this.storage.count(collection, ownerUid) };
  }
}
