import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { notFound } from '../common/errors.js';
import { RecordService } from '../common/record.service.js';
import type { Persona } from './persona.entity.js';
import { requireMayActFor, requireTokenToActForPersona } from './personas.policy.js';
import { PersonasRepository } from './personas.repository.js';

@Injectable()
export class PersonasService extends RecordService<Persona> {
  constructor(private readonly personas: PersonasRepository) {
    super(personas);
  }

  /** Another persona for the caller. */
  create(name: string, caller: Caller): Promise<Persona> {
    return this.personas.insert({ name, userUid: caller.uid });
  }

  /** The caller may act for the persona (personas.policy.ts); an unknown persona is 404. */
  async requireMayActFor(personaUid: string, caller: Caller | undefined, anonymousAllowed = false): Promise<void> {
    requireTokenToActForPersona(caller, anonymousAllowed);
    const owner = await this.personas.ownerOf(personaUid);
    if (owner === undefined) throw notFound('persona', personaUid);
    requireMayActFor(caller, personaUid, owner);
  }

  async requireExists(personaUid: string): Promise<void> {
    if ((await this.personas.ownerOf(personaUid)) === undefined) throw notFound('persona', personaUid);
  }
}
