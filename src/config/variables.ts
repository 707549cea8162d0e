import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min, ValidateBy, type ValidationArguments } from 'class-validator';

/**
 * How an environment variable is declared on the schema (environment.schema.ts): `@Variable()` says
 * what it means and what it defaults to, once; the parser reads exactly the variables declared so, and
 * the README's table and `.env.example` are printed from the same declarations (environment.docs.ts).
 *
 * A variable's text is read into its type by a class-transformer `@Transform`; a text that does not
 * read (`PORT=eighty`) is left as written, so that the class-validator check that follows names the
 * value the operator wrote rather than `NaN`.
 */

/** What the environment gives, by variable name: trimmed, an empty text counting as unset. */
export type GivenTexts = Readonly<Record<string, string | undefined>>;

interface Documentation {
  /** README "Meaning" (markdown). */
  meaning: string;
  /** `.env.example`'s comment after the line. */
  comment?: string;
  /** The value `.env.example` shows, when not the default. */
  example?: string;
}

type Defaults =
  /** Read as if the operator had written it; README "Default" shows it unless `defaultText` says more. */
  | { default?: string; defaultText?: string }
  /** A default that depends on other variables: README "Default" cannot derive a text from a function. */
  | { default: (given: GivenTexts) => string | undefined; defaultText: string };

/** A variable that shares another's README row (`IDP1_JWKS_URL`, `IDP1_ISSUER`): the row's meaning is the first one's. */
type SharedRow = Omit<Documentation, 'meaning'> & { rowOf: string };

type VariableDeclaration = (Documentation | SharedRow) & Defaults;

export type DeclaredVariable = VariableDeclaration & { name: string };

/** A class, as decorators see it (`target.constructor`). */
type Class = abstract new (...args: never[]) => unknown;

const declared = new Map<Class, DeclaredVariable[]>();

/** Declares the property as the environment variable of the same name. */
export function Variable(declaration: VariableDeclaration): PropertyDecorator {
  return (target, property) => {
    const owner = target.constructor as Class;
    declared.set(owner, [...(declared.get(owner) ?? []), { ...declaration, name: String(property) }]);
  };
}

/** The variables a schema declares, in the order of its source (the README's order). */
export function declaredVariables(schema: Class): readonly DeclaredVariable[] {
  return declared.get(schema) ?? [];
}

/** Reads the text with `read`; what `read` returns undefined for stays as written, for the check's message. */
export function ReadAs(read: (text: string) => unknown): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (read(value) ?? value) : value));
}

/** A whole number from `min` to `max`; digits only (no sign, exponent or fraction). */
export function Integer(min: number, max: number): PropertyDecorator {
  const message = `$property must be an integer from ${min} to ${max}, got "$value"`;
  return applyDecorators(
    ReadAs((text) => (/^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined)),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
}

const TRUE_TEXTS = ['true', '1', 'yes'];
const FALSE_TEXTS = ['false', '0', 'no'];

/** Reads true/1/yes and false/0/no, in any case. */
export function readFlag(text: string): boolean | undefined {
  const lower = text.toLowerCase();
  if (TRUE_TEXTS.includes(lower)) return true;
  if (FALSE_TEXTS.includes(lower)) return false;
  return undefined;
}

export function Flag(): PropertyDecorator {
  return applyDecorators(ReadAs(readFlag), IsBoolean({ message: '$property must be true or false, got "$value"' }));
}

/** Comma-separated entries, trimmed, empty ones dropped. */
export function readList(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

export function List(): PropertyDecorator {
  return ReadAs(readList);
}

/**
 * A format of its own (JSON, `10%/10s`): `read` turns the text into a value that is not text, or returns
 * undefined, and the text is refused with `message`.
 */
export function ReadWith(read: (text: string) => unknown, message: string): PropertyDecorator {
  return applyDecorators(
    ReadAs(read),
    ValidateBy({ name: 'readable', validator: { validate: (value: unknown) => typeof value !== 'string', defaultMessage: () => message } }),
  );
}

/**
 * Every entry of a list passes `isValid`; the message ends with the entries that do not, as `show`
 * prints them.
 */
export function EveryEntry(
  isValid: (entry: string) => boolean,
  requirement: string,
  show: (entry: string) => string = (entry) => entry,
): PropertyDecorator {
  return ValidateBy({
    name: 'everyEntry',
    validator: {
      validate: (value: unknown) => Array.isArray(value) && value.every((entry) => typeof entry === 'string' && isValid(entry)),
      defaultMessage: ({ value }: ValidationArguments) => `$property ${requirement}, got ${badEntries(value, isValid, show)}`,
    },
  });
}

/** The entries of `value` that fail `isValid`, each quoted; `value` itself when it is no list. */
function badEntries(value: unknown, isValid: (entry: string) => boolean, show: (entry: string) => string): string {
  const entries = Array.isArray(value) ? value.map(String).filter((entry) => !isValid(entry)) : [String(value)];
  return entries.map((entry) => `"${show(entry)}"`).join(', ');
}

/**
 * A URL of one of `protocols` (`'postgres:'`), parsed as the WHATWG URL parser does: validator.js's
 * isURL, behind class-validator's @IsUrl, refuses hosts the clients accept (compose service names
 * without a top-level domain, underscores) unless relaxed option by option.
 */
export function isUrlOf(text: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

export function Url(...protocols: string[]): PropertyDecorator {
  return ValidateBy({
    name: 'isUrlOf',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isUrlOf(value, protocols),
      defaultMessage: ({ value }: ValidationArguments) =>
        `$property must be a ${protocols.join(' or ')} URL, got "${redactUrl(String(value))}"`,
    },
  });
}

/** Hides the password of a connection URL so that it can be logged or shown in an error. */
export function redactUrl(value: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return value.replace(/\/\/[^@/]*@/, '//***@');
  }
}
