import { ApiProperty } from '@nestjs/swagger';
import { InventorySnapshot } from '../transaction.entity.js';

/**
 * What `inventory.updated` carries. The settling statement builds it in SQL
 * (TransactionsRepository.settle), so nothing compiles against this class there: test/realtime.e2e-spec.ts
 * holds the JSON it writes to this schema.
 */
export class InventoryChange {
  @ApiProperty({ format: 'uuid' })
  personaUid: string;
  @ApiProperty({ type: [InventorySnapshot], description: 'The holdings that changed, as they are now (quantity 0: none left).' })
  holdings: InventorySnapshot[];
}
