import { applyDecorators } from '@nestjs/common';
import { IsObject, registerDecorator, ValidateIf, ValidateNested, type ValidationOptions } from 'class-validator';

/** A UUID in its text form, either case: what ids in paths, queries and bodies are checked against. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * May be left out, but not sent as null: for fields that always have a value. (`@IsOptional()` lets
 * null through, which would reach a NOT NULL column.)
 */
export const IsOmittable = () => ValidateIf((_object, value) => value !== undefined);

/** A string (at most `maxLength` characters), a finite number or a boolean: the value of a stat or statistic. */
export function IsPrimitiveValue(maxLength = 1000, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPrimitiveValue',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `$property must be a string (up to ${maxLength} characters), a finite number or a boolean`, ...options },
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.length <= maxLength) ||
          (typeof value === 'number' && Number.isFinite(value)) ||
          typeof value === 'boolean',
      },
    });
}

/**
 * Every element is an object, validated as the nested DTO (`@Type()` names it). `@ValidateNested({ each:
 * true })` alone lets an array element through: it validates the inner array's elements instead, so
 * `[[]]` passed and reached the services as an "item" without fields (a 500, or a stored `[[]]`).
 */
export const EachNested = () =>
  applyDecorators(IsObject({ each: true, message: '$property must be a list of objects' }), ValidateNested({ each: true }));

/**
 * What the document states of a JSON object bounded by its bytes (metadata, storage values, progress):
 * the bytes as `x-max-bytes`, since JSON Schema has no keyword for them, and the properties such an
 * object can hold at most (each takes 5 bytes or more, `"":0,`), so that a generic validator sees a bound too.
 */
export const jsonObjectBounds = (bytes: number) => ({ maxProperties: Math.floor((bytes - 1) / 5), 'x-max-bytes': bytes });
