import { Body, Controller, Get, HttpCode } from '@nestjs/common';
import { Delete, Post, Put } from '../audit/audited-routes.js';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { AdminOnly } from '../common/policy.js';
import type { CountDto } from '../common/record.dto.js';
import { CatalogDeleteDocs, CatalogUpdateDocs, CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { ApiErrors, IfMatch, ListQueryParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { recordUpdate } from '../common/versions.js';
import { CreateItemDto } from './dto/create-item.dto.js';
import { UpdateItemDto } from './dto/update-item.dto.js';
import { Item } from './item.entity.js';
import { ItemsService } from './items.service.js';

@ApiTags('items')
@ApiSecurity('jwt')
@ApiErrors(401)
@AuditedRecord(ItemsService)
@Controller('items')
export class ItemsController {
  constructor(private readonly items: ItemsService) {}

  @ListDocs(Item, 'List items')
  @Get()
  findAll(@ListQueryParam(Item) list: ListQuery, @CurrentCaller() caller: Caller): Promise<Item[]> {
    return this.items.findAll(list, caller);
  }

  @FindDocs(Item, 'item')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Item> {
    return this.items.findOne(id, caller);
  }

  @CountDocs('Count items')
  @Get('count')
  async count(@ListQueryParam(Item) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.items.count(list, caller) };
  }

  @CatalogUpdateDocs(Item, 'item', 'Merges the given fields into the item. State the version you read (body or If-Match) to be safe.')
  @AdminOnly()
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateItemDto, @IfMatch() ifMatch?: string): Promise<Item> {
    const { fields, expectedVersion } = recordUpdate(id, body, ifMatch);
    return this.items.update(id, fields, expectedVersion);
  }

  @CatalogDeleteDocs('item', 200, { conflict: 'CONFLICT: the item is the parent of other items.' })
  @AdminOnly()
  @HttpCode(200)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.items.remove(id);
  }

  @ApiOperation({ summary: 'Create an item (admins)' })
  @RecordResponse(Item, { status: 201 })
  @ApiErrors(400, 403)
  @AdminOnly()
  @Post()
  create(@Body() body: CreateItemDto, @CurrentCaller() caller: Caller): Promise<Item> {
    return this.items.create(body, caller);
  }
}
