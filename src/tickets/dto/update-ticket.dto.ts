import { PartialType } from '@nestjs/swagger';
import { CreateTicketDto } from './create-ticket.dto.js';

/** PUT merges: the fields present replace the stored ones. */
export class UpdateTicketDto extends PartialType(CreateTicketDto, { skipNullProperties: false }) {}
