import { Body, Controller, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { CatalogController } from '../common/record.controller.js';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors, RecordResponse } from '../common/route.decorators.js';
import { CreateItemDto } from './dto/create-item.dto.js';
import { UpdateItemDto } from './dto/update-item.dto.js';
import { Item } from './item.entity.js';
import { ItemsService } from './items.service.js';

@ApiTags('items')
@Controller('items')
export class ItemsController extends CatalogController({
  entity: Item,
  updateBody: UpdateItemDto,
  name: 'item',
  plural: 'items',
  updateDescription: 'Merges the given fields into the item. State the version you read (body or If-Match) to be safe.',
  remove: { status: 200, conflict: 'CONFLICT: the item is the parent of other items.' },
}) {
  constructor(private readonly items: ItemsService) {
    super(items);
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
