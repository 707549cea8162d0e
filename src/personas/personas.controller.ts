import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import type { ListQuery } from '../common/list-query.js';
import { ApiErrors, ApiListQuery, ApiUidParam, ListQueryParam, UidParam } from '../common/route.decorators.js';
import { CreatePersonaDto } from './dto/create-persona.dto.js';
import { Persona } from './persona.entity.js';
import { PERSONA_FIELDS, PersonasService } from './personas.service.js';

@ApiTags('personas')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('personas')
export class PersonasController {
  constructor(private readonly personas: PersonasService) {}

  /** The caller's personas (an admin sees everyone's). */
  @ApiOperation({ summary: "List the caller's personas" })
  @ApiListQuery(PERSONA_FIELDS)
  @ApiOkResponse({ type: [Persona] })
  @ApiErrors(400)
  @Get()
  findAll(@ListQueryParam(PERSONA_FIELDS) list: ListQuery, @CurrentCaller() caller: Caller): Promise<Persona[]> {
    return this.personas.findAll(list, caller);
  }

  /** Creates another persona for the caller. */
  @ApiOperation({ summary: 'Create a persona' })
  @ApiCreatedResponse({ type: Persona })
  @ApiErrors(400)
  @Post()
  create(@Body() body: CreatePersonaDto, @CurrentCaller() caller: Caller): Promise<Persona> {
    return this.personas.create(body.name, caller);
  }

  @ApiOperation({ summary: 'Find a persona by id' })
  @ApiUidParam('id', 'persona')
  @ApiOkResponse({ type: Persona })
  @ApiErrors(400, 404)
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Persona> {
    return this.personas.findOne(id, caller);
  }
}
