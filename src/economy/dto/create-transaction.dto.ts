import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { EachNested, IsOmittable } from '../../common/validators.js';
import { TRANSACTION_TYPES, type TransactionType } from '../inventory-plan.js';

export class ItemQuantityDto {
  @ApiProperty({ format: 'uuid', example: '7b0c9a6e-3f1d-4a2b-9c8d-1e2f3a4b5c6d' })
  @IsUUID()
  itemUid: string;

  /** A positive whole number (at most 1,000,000,000). */
  @ApiProperty({ example: 2, minimum: 1 })
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
