import { Body, Controller, Get, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { CountDto } from '../common/record.dto.js';
import { ApiErrors, ApiListQuery, ApiUidParam, ListQueryParam, UidParam } from '../common/route.decorators.js';
import { CreateTransactionDto } from '../transactions/dto/create-transaction.dto.js';
import { InventoryTransaction } from '../transactions/transaction.entity.js';
import { TransactionsService } from '../transactions/transactions.service.js';
import { InventoryItem } from './inventory-item.entity.js';
import { INVENTORY_FIELDS, InventoriesService } from './inventories.service.js';

@ApiTags('inventories')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('inventories')
export class InventoriesController {
  constructor(
    private readonly inventories: InventoriesService,
    private readonly transactions: TransactionsService,
  ) {}

  /** What the caller's personas hold (an admin sees every inventory). */
  @ApiOperation({ summary: 'List inventory items' })
  @ApiListQuery(INVENTORY_FIELDS)
  @ApiOkResponse({ type: [InventoryItem] })
  @ApiErrors(400)
  @Get()
  findAll(@ListQueryParam(INVENTORY_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<InventoryItem[]> {
    return this.inventories.findAll(list, caller);
  }

  @ApiOperation({ summary: 'Count inventory items' })
  @ApiListQuery(INVENTORY_FIELDS)
  @ApiOkResponse({ type: CountDto })
  @ApiErrors(400)
  @Get('count')
  async count(@ListQueryParam(INVENTORY_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.inventories.count(list, caller) };
  }

  @ApiOperation({ summary: 'Find an inventory item by id' })
  @ApiUidParam('id', 'inventory item')
  @ApiOkResponse({ type: InventoryItem })
  @ApiErrors(400, 404)
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<InventoryItem> {
    return this.inventories.findOne(id, caller);
  }

  /**
   * Creates a transaction and processes it: a gift (persona two gives nothing) or an admin's
   * transaction at once, all or nothing; a trade in which persona two gives something waits PENDING
   * until persona two's owner accepts or declines it (POST /transactions/{id}/accept, /decline) or
   * persona one's owner cancels it (/cancel). Send an `Idempotency-Key` to retry safely.
   */
  @ApiOperation({ summary: 'Create and process a transaction (trade, award, removal)' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'Any unique string (1..255 visible ASCII): a retry with the same key returns the original transaction.',
  })
  @ApiOkResponse({ type: InventoryTransaction, description: 'COMPLETED, or PENDING for a trade awaiting persona two.' })
  @ApiErrors(
    [400, 'VALIDATION_FAILED: malformed request, unknown persona or item.'],
    [403, 'FORBIDDEN: not your persona one, or AWARD/REMOVAL by a non-admin.'],
    [409, 'INSUFFICIENT_QUANTITY: a giver holds too little; nothing moved and a FAILED transaction (transactionUid) was stored. IDEMPOTENCY_KEY_REUSED: the key was used for another request.'],
  )
  @HttpCode(200)
  @Post('transaction')
  createTransaction(
    @Body() body: CreateTransactionDto,
    @CurrentCaller() caller: Caller,
    // Named as documented by @ApiHeader (Nest lowercases it to read the header), so that the document
    // lists one optional header instead of adding a required lowercase twin.
    @Headers('Idempotency-Key') idempotencyKey?: string,
  ): Promise<InventoryTransaction> {
    return this.transactions.create(body, caller, idempotencyKey);
  }
}
