import { ApiProperty } from '@nestjs/swagger';

/** One quantity a completed transaction moved in or out of a persona's inventory. */
export class LedgerEntryDto {
  /** Order of entry: page back with ?before=<sequence>. */
  @ApiProperty({ pattern: '^[0-9]{1,19}$', example: '5120' })
  sequence: string;

  @ApiProperty({ format: 'uuid' })
  transactionUid: string;

  @ApiProperty({ format: 'uuid' })
  personaUid: string;

  @ApiProperty({ format: 'uuid' })
  itemUid: string;

  /** What the persona gained (positive) or lost (negative). */
  @ApiProperty({ type: 'integer', example: -3 })
  delta: number;

  @ApiProperty({ type: 'string', format: 'date-time' })
  dateCreated: Date;
}
