import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { registerDecorator } from 'class-validator';
import { JsonValue, smallJsonObjectProblem } from '../../common/json-values.js';
import { INT64_SCHEMA, int64Problem, parseInt64 } from '../rules/scores.js';

/** A 64-bit integer: a safe JSON integer, or a decimal string beyond 2^53 (scores.ts), documented as such. */
export function IsInt64(options: { description?: string; required?: boolean; nullable?: boolean; example?: number } = {}) {
  const { description, required = true, nullable = false, example } = options;
  return applyDecorators(Int64Property({ description, required, nullable, example }), (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isInt64',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: (arguments_) => `${arguments_.property} ${int64Problem(arguments_.value)}` },
      validator: { validate: (value: unknown) => parseInt64(value) !== undefined },
    }),
  );
}

/** A JSON object of at most `bytes` bytes as JSON, storable as sent (finite numbers, text jsonb takes). */
export const IsSmallObject = (bytes: number) => JsonValue((value) => smallJsonObjectProblem(value, bytes));

/** Documents a 64-bit integer field of an answer or event: a JSON integer while exact, a string of digits beyond. */
export const Int64Property = (options: { description?: string; required?: boolean; nullable?: boolean; example?: number } = {}) =>
  ApiProperty({ ...INT64_SCHEMA, ...options } as unknown as ApiPropertyOptions);
