import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
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
    }
    return super.transform(value, metadata);
  }
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
