import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';

/**
 * May be left out, but not sent as null: for fields that always have a value. (`@IsOptional()` lets
 * null through, which would reach a NOT NULL column.)
 */
export const IsOmittable = () => ValidateIf((_object, value) => value !== undefined);

/** A string (at most 1000 characters), a finite number or a boolean: the value of a stat or statistic. */
export function IsPrimitiveValue(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPrimitiveValue',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be a string (up to 1000 characters), a finite number or a boolean', ...options },
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.length <= 1000) ||
          (typeof value === 'number' && Number.isFinite(value)) ||
          typeof value === 'boolean',
      },
    });
}
