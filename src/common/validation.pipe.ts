import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { errorCodes } from 'fastify';
import secureJson from 'secure-json-parse';
import { badRequest, type ErrorDetail } from './errors.js';

/**
 * The one global validation pipe: unknown fields are 400, and DTO classes are instantiated so nested
 * objects are checked too. A body that is not a JSON object at all is refused before class-validator,
 * which would otherwise validate `[]` or `"text"` as if they were records.
 */
@Injectable()
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      // Implicit conversion turns 'false' into true (class-transformer#306): DTOs convert explicitly.
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => {
        const details = flatten(errors);
        return badRequest(details.map((detail) => `${detail.field} ${detail.message}`).join('; '), details);
      },
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      // An empty body (DELETE, or a PUT that changes nothing) counts as an empty object.
      if (value === undefined) value = {};
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw badRequest('the body must be a JSON object', [{ field: 'body', message: 'must be a JSON object' }]);
      }
      // class-transformer recurses once per level: a body nested a few thousand levels deep (a few KiB)
      // would overflow the stack and answer 500. No body of this API comes near the limit.
      if (nestsDeeperThan(value, MAX_BODY_DEPTH)) {
        throw badRequest(`the body nests deeper than ${MAX_BODY_DEPTH} levels`, [
          { field: 'body', message: `nests deeper than ${MAX_BODY_DEPTH} levels` },
        ]);
      }
    }
    return super.transform(value, metadata);
  }
}

export const MAX_BODY_DEPTH = 64;

/**
 * A JSON body, parsed as Fastify would (secure-json-parse), but saying why a valid JSON text is
 * refused: a `__proto__` key, or a `constructor` key holding `prototype`, could change the prototypes
 * of the objects the service builds from the body (prototype poisoning), so such bodies are a 400
 * naming the key, not "not valid JSON".
 */
export function parseJsonBody(text: string): unknown {
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (/forbidden prototype property/.test(message)) {
      throw badRequest('the body holds a "__proto__" key, which is refused: it could change object prototypes', [
        { field: 'body', message: 'holds a "__proto__" key' },
      ]);
    }
    if (/forbidden constructor property/.test(message)) {
      throw badRequest('the body holds a "constructor" key with a "prototype", which is refused: it could change object prototypes', [
        { field: 'body', message: 'holds "constructor.prototype"' },
      ]);
    }
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
}

/** Whether objects and arrays nest more than `limit` levels deep (the body itself is level 1). Iterative. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      field,
      // class-validator starts its messages with the property name; the field path says it already.
      message: message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message,
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}
