import { Body, Controller, Get, Headers, HttpCode, Query } from '@nestjs/common';
import { Post } from '../audit/audited-routes.js';
import { ApiExtraModels, ApiHeader, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { LedgerEntryDto } from './dto/ledger-entry.dto.js';
import { LedgerQuery } from './dto/ledger-query.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import type { CountDto } from '../common/record.dto.js';
import { CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { ApiErrors, BodyNodes, ListQueryParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { AwardTransactionDto, CreateTransactionDto, RemovalTransactionDto, TradeTransactionDto } from './dto/create-transaction.dto.js';
import { InventoryItem } from './inventory-item.entity.js';
import { InventoriesService } from './inventories.service.js';
import { InventoryTransaction } from './transaction.entity.js';
import { IDEMPOTENCY_KEY, TransactionsService } from './transactions.service.js';

@ApiTags('inventories')
@ApiExtraModels(TradeTransactionDto, AwardTransactionDto, RemovalTransactionDto)
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('inventories')
export class InventoriesController {
  constructor(
    private readonly inventories: InventoriesService,
    private readonly transactions: TransactionsService,
  ) {}

  @ListDocs(InventoryItem, 'List inventory items', "What the caller's personas hold (an admin sees every inventory).")
  @Get()
  findAll(@ListQueryParam(InventoryItem) list: ListQuery, @CurrentCaller() caller: Caller): Promise<InventoryItem[]> {
    return this.inventories.findAll(list, caller);
  }

  @ApiOperation({
    summary: "Read a persona's ledger",
    description:
      "Every quantity completed transactions moved in or out of the persona's inventory, newest first. The persona's owner and admins.",
  })
  @ApiOkResponse({ type: [LedgerEntryDto] })
  @ApiErrors(400, [404, 'NOT_FOUND: no such persona, or not yours.'])
  @Get('ledger')
  ledger(@Query() { personaUid, before, limit }: LedgerQuery, @CurrentCaller() caller: Caller): Promise<LedgerEntryDto[]> {
    return this.inventories.ledgerOf(personaUid, caller, limit, before);
  }

  @FindDocs(InventoryItem, 'inventory item')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<InventoryItem> {
    return this.inventories.findOne(id, caller);
  }

  @CountDocs('Count inventory items', "What the caller's personas hold (an admin sees every inventory).")
  @Get('count')
  async count(@ListQueryParam(InventoryItem) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.inventories.count(list, caller) };
  }

  /**
   * Creates a transaction and processes it: a gift (persona two gives nothing) or an admin's
   * transaction at once, all or nothing; a trade in which persona two gives something waits PENDING
   * until persona two's owner accepts or declines it (POST /transactions/{id}/accept, /decline) or
   * persona one's owner cancels it (/cancel). Send an `Idempotency-Key` to retry safely.
   */
  @ApiOperation({
    summary: 'Create and process a transaction (trade, award, removal)',
    description:
      'Rules no schema states (a 400 names the field): a TRADE names personaTwoUid, different from personaOneUid, and ' +
      'moves at least one item; an AWARD or REMOVAL takes no personaTwoUid and no personaTwoInventoryItems, and names ' +
      'at least one item; a list names an item once; every persona and item named exists.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'Any unique string (1..255 visible ASCII): a retry with the same key returns the original transaction.',
    schema: { type: 'string', pattern: IDEMPOTENCY_KEY.source, example: 'trade-2f6a1c9e-0001' },
  })
  @RecordResponse(InventoryTransaction, { description: 'COMPLETED, or PENDING for a trade awaiting persona two.' })
  @ApiErrors(
    [400, 'VALIDATION_FAILED: malformed request, unknown persona or item.'],
    [403, 'FORBIDDEN: not your persona one, or AWARD/REMOVAL by a non-admin.'],
    [
      409,
      'INSUFFICIENT_QUANTITY: a giver holds too little; nothing moved and a FAILED transaction (transactionUid) was stored. IDEMPOTENCY_KEY_REUSED: the key was used for another request.',
    ],
  )
  @HttpCode(200)
  @BodyNodes('saves')
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
