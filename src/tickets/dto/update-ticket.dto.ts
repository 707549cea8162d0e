import { PartialType } from '@nestjs/swagger';
import { SchemaExample } from '../../common/fields.js';
import { CreateTicketDto } from './create-ticket.dto.js';

/** PUT merges: the fields present replace the stored ones. */
@SchemaExample({ criteria: [{ name: 'skill', minValue: 900, maxValue: 1500 }], statistics: [{ name: 'skill', value: 1200 }] })
export class UpdateTicketDto extends PartialType(CreateTicketDto, { skipNullProperties: false }) {}
