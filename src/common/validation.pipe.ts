import { type ArgumentMetadata, Injectable, type Type, ValidationError, ValidationPipe } from '@nestjs/common';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { badRequest, type ErrorDetail } from './errors.js';
import { isJsonObject, JSON_VALUE, type JsonValueProblem } from './json-values.js';

/**
 * The one global validation pipe: unknown fields are 400, and DTO classes are instantiated so nested
 * objects are checked too. A body that is not a JSON object at all is refused before class-validator,
 * which would otherwise validate `[]` or `"text"` as if they were records.
 *
 * class-transformer copies a body node by node before class-validator judges it, so a body is first
 * read against its DTO's shape (bodyShapeProblem): a field the DTO does not have, or a list longer than
 * its @ArrayMaxSize, is refused before anything is copied, and JSON fields (@JsonValue: storage values,
 * metadata) are checked by their own walk and passed through as parsed, never copied.
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
      exceptionFactory: (errors) => failure(flatten(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body' || !metadata.metatype || metadata.metatype === Object) return super.transform(value, metadata);
    // An empty body (DELETE, or a PUT that changes nothing) counts as an empty object.
    if (value === undefined) value = {};
    if (!isJsonObject(value)) {
      throw badRequest('the body must be a JSON object', [{ field: 'body', message: 'must be a JSON object' }]);
    }
    const passed: PassedJson[] = [];
    const problem = bodyShapeProblem(value, metadata.metatype, [], passed);
    if (problem) throw failure([problem]);
    const dto: unknown = await super.transform(value, metadata);
    for (const { path, json } of passed) placeAt(dto, path, json);
    return dto;
  }
}

const failure = (details: ErrorDetail[]) => badRequest(details.map((detail) => `${detail.field} ${detail.message}`).join('; '), details);

/** What the pipe needs to know of a DTO class, read once from class-validator's and class-transformer's metadata. */
interface Shape {
  /** Every field with a validation decorator: the others are unknown (forbidNonWhitelisted). */
  fields: Set<string>;
  /** Fields holding DTOs (@Type), with their class and, for lists, their @ArrayMaxSize. */
  nested: Map<string, { type: Type; maxItems?: number }>;
  /** JSON fields (@JsonValue), with their check and the conditions that let them be left out. */
  json: Map<string, { problem: JsonValueProblem; conditions: ValidationMetadata[] }>;
}

type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

const shapes = new WeakMap<Type, Shape>();

function shapeOf(type: Type): Shape {
  let shape = shapes.get(type);
  if (shape) return shape;
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(type, '', false, false);
  const byField = new Map<string, ValidationMetadata[]>();
  for (const metadata of metadatas) byField.set(metadata.propertyName, [...(byField.get(metadata.propertyName) ?? []), metadata]);
  shape = { fields: new Set(byField.keys()), nested: new Map(), json: new Map() };
  for (const [field, own] of byField) {
    const json = own.find((metadata) => metadata.name === JSON_VALUE);
    if (json) {
      const conditions = own.filter((metadata) => metadata.type === ValidationTypes.CONDITIONAL_VALIDATION);
      shape.json.set(field, { problem: json.constraints[0] as JsonValueProblem, conditions });
      continue;
    }
    const nested = defaultMetadataStorage.findTypeMetadata(type, field);
    const nestedType = nested?.typeFunction() as Type | undefined;
    if (nestedType && nestedType !== Object && nestedType.prototype) {
      const maxItems = own.find((metadata) => metadata.name === 'arrayMaxSize')?.constraints[0] as number | undefined;
      shape.nested.set(field, { type: nestedType, maxItems });
    }
  }
  shapes.set(type, shape);
  return shape;
}

/** A JSON field's parsed value, taken out of the body before class-transformer and put back into the DTO at `path`. */
interface PassedJson {
  path: Array<string | number>;
  json: unknown;
}

/**
 * The first way `body` does not fit `type` that must be refused before the body is copied: a field the
 * DTO does not have, a list of DTOs past its @ArrayMaxSize, or a JSON field its check refuses. Every
 * other problem is class-validator's to find. JSON fields that pass are replaced by an empty container
 * and listed in `passed`.
 */
function bodyShapeProblem(
  body: Record<string, unknown>,
  type: Type,
  path: Array<string | number>,
  passed: PassedJson[],
): ErrorDetail | undefined {
  const shape = shapeOf(type);
  const at = (field: string | number) => [...path, field].join('.');
  for (const field of Object.keys(body)) {
    // class-validator's own words, so that a refusal reads the same whichever check made it.
    if (!shape.fields.has(field)) return { field: at(field), message: `property ${field} should not exist` };
  }
  for (const [field, { problem, conditions }] of shape.json) {
    const value = body[field];
    if (conditions.some((condition) => !(condition.constraints[0] as (object: object, value: unknown) => boolean)(body, value))) continue;
    const refused = problem(value);
    if (refused) return { field: at(field), message: refused };
    if (value !== null && typeof value === 'object') {
      passed.push({ path: [...path, field], json: value });
      body[field] = Array.isArray(value) ? [] : {};
    }
  }
  for (const [field, { type: nestedType, maxItems }] of shape.nested) {
    const value = body[field];
    if (Array.isArray(value)) {
      if (maxItems !== undefined && value.length > maxItems) {
        return { field: at(field), message: `must contain no more than ${maxItems} elements` };
      }
      for (let index = 0; index < value.length; index++) {
        const element: unknown = value[index];
        const found = isJsonObject(element) ? bodyShapeProblem(element, nestedType, [...path, field, index], passed) : undefined;
        if (found) return found;
      }
    } else if (isJsonObject(value)) {
      const found = bodyShapeProblem(value, nestedType, [...path, field], passed);
      if (found) return found;
    }
  }
  return undefined;
}

function placeAt(dto: unknown, path: Array<string | number>, json: unknown): void {
  let holder = dto as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) holder = holder[step] as Record<string | number, unknown>;
  holder[path.at(-1)!] = json;
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
