import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/admin.guard.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { CountDto } from '../common/record.dto.js';
import { ApiErrors, ApiListQuery, ApiUidParam, IfMatch, ListQueryParam, UidParam } from '../common/route.decorators.js';
import { expectedVersion } from '../common/versions.js';
import { CreateItemDto } from './dto/create-item.dto.js';
import { UpdateItemDto } from './dto/update-item.dto.js';
import { Item } from './item.entity.js';
import { ITEM_FIELDS, ItemsService } from './items.service.js';

@ApiTags('items')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('items')
export class ItemsController {
  constructor(private readonly items: ItemsService) {}

  @ApiOperation({ summary: 'List items' })
  @ApiListQuery(ITEM_FIELDS)
  @ApiOkResponse({ type: [Item] })
  @ApiErrors(400)
  @Get()
  findAll(@ListQueryParam(ITEM_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<Item[]> {
    return this.items.findAll(list, caller);
  }

  @ApiOperation({ summary: 'Create an item (admins)' })
  @ApiCreatedResponse({ type: Item })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Post()
  create(@Body() body: CreateItemDto, @CurrentCaller() caller: Caller): Promise<Item> {
    return this.items.create(body, caller);
  }

  @ApiOperation({ summary: 'Count items' })
  @ApiListQuery(ITEM_FIELDS)
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400)
  @Get('count')
  async count(@ListQueryParam(ITEM_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.items.count(list, caller) };
  }

  @ApiOperation({ summary: 'Find an item by id' })
  @ApiUidParam('id', 'item')
  @ApiOkResponse({ type: Item, description: 'The item, with `ETag: "<version>"`.' })
  @ApiErrors(400, 404)
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Item> {
    return this.items.findOne(id, caller);
  }

  /** Merges the given fields into the item. State the version you read (body or If-Match) to be safe. */
  @ApiOperation({ summary: 'Update an item (admins)' })
  @ApiUidParam('id', 'item')
  @ApiOkResponse({ type: Item })
  @ApiErrors(400, 403, 404, 409)
  @AdminOnly()
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateItemDto, @IfMatch() ifMatch?: string): Promise<Item> {
    return this.items.update(id, body, expectedVersion(body.version, ifMatch));
  }

  @ApiOperation({ summary: 'Delete an item (admins)' })
  @ApiUidParam('id', 'item')
  @ApiOkResponse({ description: 'Deleted; no body.' })
  @ApiErrors(400, 403, 404, [409, 'CONFLICT: the item is the parent of other items.'])
  @AdminOnly()
  @HttpCode(200)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.items.remove(id);
  }
}
