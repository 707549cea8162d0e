import { HttpStatus, Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, ErrorCode, notFound } from '../common/errors.js';
import { RecordService } from '../database/record.service.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import type { Persona } from './persona.entity.js';
import { requireMayActFor, requireTokenToActForPersona } from './personas.policy.js';
import { PersonasRepository } from './personas.repository.js';

@Injectable()
export class PersonasService extends RecordService<Persona> {
  constructor(
    private readonly personas: PersonasRepository,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    super(personas);
  }

  /**
   * Another persona for the caller, unless they have PERSONAS_PER_USER already (409 PERSONA_LIMIT):
   * counted under a lock on the user, so that creations racing at the limit make one, not several.
   */
  create(name: string, caller: Caller): Promise<Persona> {
    const limit = this.config.personasPerUser;
    return this.personas.transaction(async (db) => {
      if ((await this.personas.lockUserAndCount(db, caller.uid)) >= limit) throw personaLimit(limit);
      return this.personas.insert({ name, userUid: caller.uid }, db);
    });
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

const personaLimit = (limit: number) =>
  new ApiException(HttpStatus.CONFLICT, ErrorCode.PERSONA_LIMIT, `a user may have ${limit} personas, and you have them all`, { limit });
