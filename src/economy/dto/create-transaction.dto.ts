import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { Alternatives } from '../../common/fields.js';
import { EachNested, IsOmittable } from '../../common/validators.js';
import { TRANSACTION_TYPES, type TransactionType } from '../inventory-plan.js';

export class ItemQuantityDto {
  @ApiProperty({ format: 'uuid', example: '7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d' })
  @IsUUID()
  itemUid: string;

  /** A positive whole number (at most 1,000,000,000). */
  @ApiProperty({ type: 'integer', example: 2, minimum: 1 })
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  quantity: number;
}

/**
 * TRADE (default): persona one gives `personaOneInventoryItems` to persona two, and persona two gives
 * `personaTwoInventoryItems` to persona one. A trade in which persona two gives nothing (a gift), or
 * made by an admin, is processed at once; otherwise it waits PENDING for persona two's owner.
 * AWARD (admins) adds persona one's list to its inventory; REMOVAL (admins) takes it away.
 */
@Alternatives({
  propertyName: 'type',
  mapping: { TRADE: () => TradeTransactionDto, AWARD: () => AwardTransactionDto, REMOVAL: () => RemovalTransactionDto },
  // The document requires `type` so that generated clients name the shape; older clients that leave it
  // out still get a TRADE.
  description:
    'TRADE, AWARD or REMOVAL: the shape of the body. Required here so that clients name the shape; a body without it is ' +
    'taken as a TRADE.',
  example: {
    type: 'TRADE',
    personaOneUid: '2f6a1c9e-5b3d-4e7f-8a1b-0c9d8e7f6a5b',
    personaTwoUid: 'd3e4f5a6-b7c8-4d9e-8f0a-1b2c3d4e5f60',
    personaOneInventoryItems: [{ itemUid: '7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d', quantity: 1 }],
  },
})
export class CreateTransactionDto {
  @ApiProperty({ enum: TRANSACTION_TYPES, enumName: 'TransactionType', required: false, default: 'TRADE' })
  @IsOmittable()
  @IsIn(TRANSACTION_TYPES)
  type?: TransactionType;

  @ApiProperty({ format: 'uuid', example: '2f6a1c9e-5b3d-4e7f-8a1b-0c9d8e7f6a5b' })
  @IsUUID()
  personaOneUid: string;

  /** Required for a TRADE (another persona); absent for AWARD and REMOVAL. */
  @ApiProperty({ type: 'string', format: 'uuid', required: false, nullable: true, example: 'd3e4f5a6-b7c8-4d9e-8f0a-1b2c3d4e5f60' })
  @IsOptional()
  @IsUUID()
  personaTwoUid?: string | null;

  @ApiProperty({ type: [ItemQuantityDto], required: false, example: [{ itemUid: '7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d', quantity: 1 }] })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(100)
  @EachNested()
  @Type(() => ItemQuantityDto)
  personaOneInventoryItems?: ItemQuantityDto[];

  @ApiProperty({ type: [ItemQuantityDto], required: false })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(100)
  @EachNested()
  @Type(() => ItemQuantityDto)
  personaTwoInventoryItems?: ItemQuantityDto[];
}

// The body's three shapes, for the OpenAPI document (CreateTransactionDto validates them all, with the
// cross-field rules no schema states: see TransactionsService.checkRequest). @Alternatives() makes
// the document's CreateTransactionDto their base, told apart by `type`, and each of them an allOf of it.
const ITEM_LIST_EXAMPLE = [{ itemUid: '7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d', quantity: 1 }];
const PERSONA_ONE_EXAMPLE = '2f6a1c9e-5b3d-4e7f-8a1b-0c9d8e7f6a5b';

/**
 * A trade between two personas (the default type). persona two must differ from persona one, the two
 * lists together must move something, and a list may not name an item twice.
 */
export class TradeTransactionDto {
  @ApiProperty({ format: 'uuid', example: PERSONA_ONE_EXAMPLE })
  personaOneUid: string;

  @ApiProperty({ format: 'uuid', example: 'd3e4f5a6-b7c8-4d9e-8f0a-1b2c3d4e5f60' })
  personaTwoUid: string;

  @ApiProperty({ type: [ItemQuantityDto], required: false, maxItems: 100, example: ITEM_LIST_EXAMPLE })
  personaOneInventoryItems?: ItemQuantityDto[];

  @ApiProperty({ type: [ItemQuantityDto], required: false, maxItems: 100, example: [] })
  personaTwoInventoryItems?: ItemQuantityDto[];
}

/**
 * An admin's award to persona one (AWARD), or removal from it (REMOVAL): one list, no persona two (the
 * service also takes `personaTwoUid: null` and an empty `personaTwoInventoryItems`, which older clients send).
 */
class OnePersonaTransactionDto {
  @ApiProperty({ format: 'uuid', example: PERSONA_ONE_EXAMPLE })
  personaOneUid: string;

  @ApiProperty({ type: [ItemQuantityDto], minItems: 1, maxItems: 100, example: ITEM_LIST_EXAMPLE })
  personaOneInventoryItems: ItemQuantityDto[];
}

/** Adds persona one's list to its inventory (admins). */
export class AwardTransactionDto extends OnePersonaTransactionDto {}

/** Takes persona one's list away from its inventory (admins); 409 when it holds less. */
export class RemovalTransactionDto extends OnePersonaTransactionDto {}
