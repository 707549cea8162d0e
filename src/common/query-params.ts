import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { Expose, Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { UUID } from './validators.js';

/**
 * The properties of query DTOs (`@Query() query: SomeQuery`): each one query parameter, read from its
 * text, documented and checked by the same declaration, so that the global validation pipe refuses
 * what a route does not take (unknown parameters, named) and the document lists what it does.
 *
 * A query parameter is text, or a list of texts when it is given more than once (`?a=1&a=2`): the
 * transform turns the text into the route's value, or into a refusal that the validator reports under
 * the parameter's name. Parameters left out take their default here too, so a handler reads a whole
 * query, never `?? default`.
 */

/** Why a parameter's text was refused: what the transform leaves for the validator to report. */
export class Refusal {
  constructor(readonly message: string) {}
}

/** A refusal whose message is not the parameter's usual one (a rule between parameters). */
export const refuse = (message: string) => new Refusal(message);

/** The schema keywords a query parameter states. */
type Schema = Pick<ApiPropertyOptions, 'type' | 'format' | 'pattern' | 'minimum' | 'maximum' | 'minLength' | 'maxLength' | 'example'>;

export interface QueryParamOptions<T> {
  /** The parameter's schema in the document: its type, bounds and format, as the parse enforces them. */
  schema: Schema;
  description?: string;
  required?: boolean;
  /** The value when the parameter is left out (documented as the schema's default unless `documentedDefault` says otherwise). */
  default?: T;
  documentedDefault?: unknown;
  /** What a valid text is, after the parameter's name: "must be a UUID". */
  means: string;
  /** The value of a text; undefined when the text is not valid, a Refusal for another reason. */
  parse: (text: string, query: Record<string, unknown>) => T | undefined | Refusal;
}

export function QueryParam<T>(options: QueryParamOptions<T>): PropertyDecorator {
  const { schema, description, required = false, means } = options;
  const documentedDefault = 'documentedDefault' in options ? options.documentedDefault : options.default;
  return applyDecorators(
    ApiProperty({
      required,
      ...(description !== undefined && { description }),
      ...schema,
      ...(documentedDefault !== undefined && { default: documentedDefault }),
    } as ApiPropertyOptions),
    // Exposed: a parameter left out is transformed too (to its default, or to a refusal when required).
    Expose(),
    Transform(({ value, obj }: { value: unknown; obj: Record<string, unknown> }) => {
      if (value === undefined) return required ? new Refusal(`is required: it ${means}`) : options.default;
      if (typeof value !== 'string') return new Refusal('is given more than once');
      return options.parse(value, obj) ?? new Refusal(means);
    }),
    ValidateBy({
      name: 'queryParameter',
      validator: {
        validate: (value: unknown) => !(value instanceof Refusal),
        defaultMessage: (args) => `$property ${(args?.value as Refusal | undefined)?.message ?? means}`,
      },
    }),
  );
}

/** An integer from `min` to `max` (digits only). */
export const QueryInteger = (options: { min: number; max: number; default?: number; description?: string }) =>
  QueryParam<number>({
    schema: { type: 'integer', minimum: options.min, maximum: options.max },
    description: options.description,
    default: options.default,
    means: `must be an integer from ${options.min} to ${options.max}`,
    parse: (text) => {
      const value = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
      return value >= options.min && value <= options.max ? value : undefined;
    },
  });

/** A UUID, in lower case. */
export const QueryUuid = (options: { description?: string; required?: boolean } = {}) =>
  QueryParam<string>({
    schema: { type: 'string', format: 'uuid' },
    ...options,
    means: 'must be a UUID',
    parse: (text) => (UUID.test(text) ? text.toLowerCase() : undefined),
  });

/** A text that matches `pattern` (whose source is the schema's pattern). */
export const QueryPattern = (pattern: RegExp, options: { means: string; description?: string; schema?: Schema }) =>
  QueryParam<string>({
    schema: { type: 'string', pattern: pattern.source, ...options.schema },
    description: options.description,
    means: options.means,
    parse: (text) => (pattern.test(text) ? text : undefined),
  });
