import type { OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '../config/environment.js';

/** The persona limit this instance runs with, in the description of the route it bounds. */
export function documentPersonaLimit(document: OpenAPIObject, { personasPerUser }: Pick<AppConfig, 'personasPerUser'>): void {
  const create = (document.paths['/personas'] as Record<string, { description?: string }> | undefined)?.post;
  if (create) {
    create.description =
      `${create.description ?? ''} A user may have ${personasPerUser} personas (PERSONAS_PER_USER), the one made at their first ` +
      'sign-in included; one more is 409 PERSONA_LIMIT.';
  }
}
