/**
 * Language keys of text assets and the choice of a text for a reader: pure functions, so that the
 * rules are unit-tested without HTTP or a database.
 */

/** The key every text asset has: the text shown when no language matches. */
export const DEFAULT_TEXT_KEY = 'default';

/**
 * A BCP 47 language tag: language (2-3 letters), optional script (4 letters), optional region (2 letters
 * or 3 digits), variants. Extensions and private use are left out: game text does not need them.
 */
export const LANGUAGE_TAG = /^[a-zA-Z]{2,3}(-[a-zA-Z]{4})?(-([a-zA-Z]{2}|\d{3}))?(-([a-zA-Z\d]{5,8}|\d[a-zA-Z\d]{3}))*$/;

/** RFC 4647 basic language range, the form Accept-Language uses (`*` aside). */
const LANGUAGE_RANGE = /^[a-zA-Z]{1,8}(-[a-zA-Z\d]{1,8})*$/;
const QUALITY = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;
/** Accept-Language entries read at most: the header is the client's, the work should stay bounded. */
const MAX_PREFERENCES = 32;

/** Characters of a language tag. */
export const MAX_LANGUAGE_TAG = 64;

export const isLanguageTag = (value: string): boolean => value.length <= MAX_LANGUAGE_TAG && LANGUAGE_TAG.test(value);

/**
 * The languages of an Accept-Language header, most wanted first (RFC 9110 section 12.5.4): `q=0`
 * entries and the wildcard are dropped, equal weights keep their order. The header is sent by browsers
 * and HTTP libraries on their own, so malformed entries are skipped rather than refused.
 */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (!header) return [];
  const entries: Array<{ tag: string; quality: number; position: number }> = [];
  for (const [position, part] of header.split(',').slice(0, MAX_PREFERENCES).entries()) {
    const [range, ...parameters] = part.split(';').map((piece) => piece.trim());
    if (!range || range === '*' || !LANGUAGE_RANGE.test(range)) continue;
    let quality = 1;
    const weight = parameters.find((parameter) => /^q=/i.test(parameter));
    if (weight !== undefined) {
      if (!QUALITY.test(weight)) continue;
      quality = Number(weight.slice(2));
    }
    if (quality > 0) entries.push({ tag: range, quality, position });
  }
  return entries.sort((a, b) => b.quality - a.quality || a.position - b.position).map((entry) => entry.tag);
}

/**
 * `pt-BR` → [`pt-BR`, `pt`]; `zh-Hant-TW` → [`zh-Hant-TW`, `zh-Hant`, `zh`]: the RFC 4647 lookup
 * fallback, dropping a single-letter subtag left at the end (`x` of a private-use part).
 */
export function fallbackChain(tag: string): string[] {
  const chain: string[] = [];
  const subtags = tag.split('-');
  while (subtags.length > 0) {
    chain.push(subtags.join('-'));
    subtags.pop();
    while (subtags.length > 1 && subtags[subtags.length - 1].length === 1) subtags.pop();
  }
  return chain;
}

export interface ResolvedText {
  /** The key whose text was chosen: a language tag as stored, or `default`. */
  language: string;
  text: string;
}

/**
 * The text for a reader who wants `preferences` (most wanted first): for each preference in turn, its
 * exact tag and then ever shorter prefixes (RFC 4647 lookup), compared without regard to case; when
 * none matches, the default text.
 */
export function resolveText(texts: Record<string, string>, preferences: readonly string[]): ResolvedText {
  const byLowerCase = new Map<string, string>();
  for (const key of Object.keys(texts)) {
    if (key !== DEFAULT_TEXT_KEY) byLowerCase.set(key.toLowerCase(), key);
  }
  for (const preference of preferences) {
    for (const candidate of fallbackChain(preference)) {
      const key = byLowerCase.get(candidate.toLowerCase());
      if (key !== undefined) return { language: key, text: texts[key] };
    }
  }
  return { language: DEFAULT_TEXT_KEY, text: texts[DEFAULT_TEXT_KEY] };
}
