import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { RecordController } from '../common/record.controller.js';
import { ApiErrors, ApiUidParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { InventoryTransaction } from './transaction.entity.js';
import { TransactionsService } from './transactions.service.js';

const PENDING_ONLY = [409, 'CONFLICT: the transaction is no longer PENDING.'] as [409, string];

@ApiTags('transactions')
@Controller('transactions')
export class TransactionsController extends RecordController({
  entity: InventoryTransaction,
  name: 'transaction',
  plural: 'transactions',
  listDescription: "Transactions involving the caller's personas (an admin sees all).",
}) {
  constructor(private readonly transactions: TransactionsService) {
    super(transactions);
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
