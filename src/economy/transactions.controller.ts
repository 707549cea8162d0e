import { Controller, Get, HttpCode } from '@nestjs/common';
import { Post } from '../audit/audited-routes.js';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import type { CountDto } from '../common/record.dto.js';
import { CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { ApiErrors, ApiUidParam, ListQueryParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { InventoryTransaction } from './transaction.entity.js';
import { TransactionsService } from './transactions.service.js';

const PENDING_ONLY = [409, 'CONFLICT: the transaction is no longer PENDING.'] as [409, string];

@ApiTags('transactions')
@ApiSecurity('jwt')
@ApiErrors(401)
@AuditedRecord(TransactionsService)
@Controller('transactions')
export class TransactionsController {
  constructor(private readonly transactions: TransactionsService) {}

  @ListDocs(InventoryTransaction, 'List transactions', "Transactions involving the caller's personas (an admin sees all).")
  @Get()
  findAll(@ListQueryParam(InventoryTransaction) list: ListQuery, @CurrentCaller() caller: Caller): Promise<InventoryTransaction[]> {
    return this.transactions.findAll(list, caller);
  }

  @FindDocs(InventoryTransaction, 'transaction')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<InventoryTransaction> {
    return this.transactions.findOne(id, caller);
  }

  @CountDocs('Count transactions', "Transactions involving the caller's personas (an admin sees all).")
  @Get('count')
  async count(@ListQueryParam(InventoryTransaction) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.transactions.count(list, caller) };
  }

  /** Persona two's owner accepts a PENDING trade: it is processed now, all or nothing. */
  @ApiOperation({ summary: 'Accept a pending trade (persona two)' })
  @ApiUidParam('id', 'transaction')
  @RecordResponse(InventoryTransaction)
  @ApiErrors(400, 403, 404, [409, 'CONFLICT: no longer PENDING; INSUFFICIENT_QUANTITY: a giver holds too little (FAILED).'])
  @HttpCode(200)
  @Post(':id/accept')
  accept(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<InventoryTransaction> {
    return this.transactions.accept(id, caller);
  }

  @ApiOperation({ summary: 'Decline a pending trade (persona two)' })
  @ApiUidParam('id', 'transaction')
  @RecordResponse(InventoryTransaction)
  @ApiErrors(400, 403, 404, PENDING_ONLY)
  @HttpCode(200)
  @Post(':id/decline')
  decline(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<InventoryTransaction> {
    return this.transactions.decline(id, caller);
  }

  @ApiOperation({ summary: 'Cancel a pending trade (persona one)' })
  @ApiUidParam('id', 'transaction')
  @RecordResponse(InventoryTransaction)
  @ApiErrors(400, 403, 404, PENDING_ONLY)
  @HttpCode(200)
  @Post(':id/cancel')
  cancel(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<InventoryTransaction> {
    return this.transactions.cancel(id, caller);
  }
}
