import { Body, Controller, Get } from '@nestjs/common';
import { Post } from '../audit/audited-routes.js';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { FindDocs, ListDocs } from '../common/record-routes.js';
import { ApiErrors, ListQueryParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { CreatePersonaDto } from './dto/create-persona.dto.js';
import { Persona } from './persona.entity.js';
import { PersonasService } from './personas.service.js';

@ApiTags('personas')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('personas')
export class PersonasController {
  constructor(private readonly personas: PersonasService) {}

  @ListDocs(Persona, "List the caller's personas", "The caller's personas (an admin sees everyone's).")
  @Get()
  findAll(@ListQueryParam(Persona) list: ListQuery, @CurrentCaller() caller: Caller): Promise<Persona[]> {
    return this.personas.findAll(list, caller);
  }

  @FindDocs(Persona, 'persona')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Persona> {
    return this.personas.findOne(id, caller);
  }

  /** Creates another persona for the caller (documentPersonaLimit adds how many a user may have). */
  @ApiOperation({ summary: 'Create a persona', description: 'Another persona for the caller.' })
  @RecordResponse(Persona, { status: 201 })
  @ApiErrors(400, [409, 'PERSONA_LIMIT: the caller has PERSONAS_PER_USER personas already (`limit` says how many); nothing was created.'])
  @Post()
  create(@Body() body: CreatePersonaDto, @CurrentCaller() caller: Caller): Promise<Persona> {
    return this.personas.create(body.name, caller);
  }
}
