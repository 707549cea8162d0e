import { registerDecorator, type ValidationOptions } from 'class-validator';
import { DEFAULT_TEXT_KEY, isLanguageTag, LANGUAGE_TAG } from '../text-language.js';

export const MAX_LANGUAGES = 200;

/** A key of a text map, as a JSON Schema pattern: `default` or a BCP 47 tag (of at most 64 characters). */
export const TEXT_KEY_PATTERN = `^(?:${DEFAULT_TEXT_KEY}|(?=.{1,64}$)${LANGUAGE_TAG.source.slice(1, -1)})$`;
export const MAX_TEXT_LENGTH = 100_000;

/**
 * What is wrong with a `text` map, each problem naming its key; empty when it is fine. Keys are
 * `default` or BCP 47 tags, one text per language whatever the case of its tag (`pt-BR` and `pt-br`
 * are the same language), values strings of at most 100 000 characters.
 */
export function localizedTextProblems(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return ['must be an object mapping default and language tags (en, pt-BR, ...) to strings'];
  }
  const entries = Object.entries(value);
  const problems: string[] = [];
  if (!Object.hasOwn(value, DEFAULT_TEXT_KEY)) problems.push('must include the default text');
  if (entries.length > MAX_LANGUAGES) problems.push(`must have at most ${MAX_LANGUAGES} languages`);
  const seen = new Map<string, string>();
  for (const [key, text] of entries.slice(0, MAX_LANGUAGES + 1)) {
    if (key !== DEFAULT_TEXT_KEY) {
      if (!isLanguageTag(key)) {
        problems.push(`has the key ${JSON.stringify(key)}, which is neither default nor a BCP 47 language tag such as en or pt-BR`);
      } else if (seen.has(key.toLowerCase())) {
        problems.push(`has ${JSON.stringify(seen.get(key.toLowerCase()))} and ${JSON.stringify(key)}: the same language twice`);
      } else {
        seen.set(key.toLowerCase(), key);
      }
    }
    if (typeof text !== 'string' || text.length > MAX_TEXT_LENGTH) {
      problems.push(`has a text for ${JSON.stringify(key)} that is not a string of at most ${MAX_TEXT_LENGTH} characters`);
    }
  }
  return problems;
}

/** A map of `default` and BCP 47 language tags to texts; the message lists every problem. */
export function IsLocalizedText(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isLocalizedText',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ property, value }) => `${property} ${localizedTextProblems(value).join('; ')}`,
        ...options,
      },
      validator: { validate: (value: unknown) => localizedTextProblems(value).length === 0 },
    });
}

/** The example shown in the OpenAPI document for a `text` map. */
export const LOCALIZED_TEXT_EXAMPLE = {
  default: 'Welcome, adventurer!',
  en: 'Welcome, adventurer!',
  pt: 'Bem-vindo, aventureiro!',
  'pt-BR': 'Bem-vindo, aventureiro!',
  'de-CH': 'Willkommen, Abenteurer!',
};
