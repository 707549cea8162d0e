import { Body, Controller, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { RecordController } from '../common/record.controller.js';
import { ApiErrors, RecordResponse } from '../common/route.decorators.js';
import { CreatePersonaDto } from './dto/create-persona.dto.js';
import { Persona } from './persona.entity.js';
import { PersonasService } from './personas.service.js';

@ApiTags('personas')
@Controller('personas')
export class PersonasController extends RecordController({
  entity: Persona,
  name: 'persona',
  plural: 'personas',
  listSummary: "List the caller's personas",
  count: false,
  listDescription: "The caller's personas (an admin sees everyone's).",
}) {
  constructor(private readonly personas: PersonasService) {
    super(personas);
  }

  /** Creates another persona for the caller. */
  @ApiOperation({ summary: 'Create a persona' })
  @RecordResponse(Persona, { status: 201 })
  @ApiErrors(400)
  @Post()
  create(@Body() body: CreatePersonaDto, @CurrentCaller() caller: Caller): Promise<Persona> {
    return this.personas.create(body.name, caller);
  }
}
