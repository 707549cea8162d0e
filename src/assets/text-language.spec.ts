import { localizedTextProblems } from './dto/localized-text.validator.js';
import { fallbackChain, isLanguageTag, parseAcceptLanguage, resolveText } from './text-language.js';

const TEXTS = {
  default: 'Hello!',
  en: 'Hello!',
  pt: 'Olá!',
  'pt-BR': 'Oi!',
  'zh-Hant': '你好！',
  'DE-ch': 'Grüezi!',
};

describe('isLanguageTag', () => {
  it.each(['en', 'pt-BR', 'pt-br', 'EN', 'zh-Hant', 'zh-Hant-TW', 'es-419', 'de-CH-1996', 'sl-rozaj', 'yue', 'und'])(
    'accepts %s',
    (tag) => {
      expect(isLanguageTag(tag)).toBe(true);
    },
  );

  it.each(['', 'e', 'default', 'english', 'pt_BR', 'pt-', '-pt', 'pt-BRA-', 'en-x-private', 'en US', 'zh-Hant-TW-', '12'])(
    'refuses %j',
    (tag) => {
      expect(isLanguageTag(tag)).toBe(false);
    },
  );
});

describe('parseAcceptLanguage', () => {
  it('gives nothing for a missing or empty header', () => {
    expect(parseAcceptLanguage(undefined)).toEqual([]);
    expect(parseAcceptLanguage('')).toEqual([]);
  });

  it('orders languages by q-value, highest first, and keeps the given order among equals', () => {
    expect(parseAcceptLanguage('en;q=0.5, pt-BR, de;q=0.8, fr')).toEqual(['pt-BR', 'fr', 'de', 'en']);
  });

  it('reads q-values with up to three decimals, q in any case, and spaces around the parts', () => {
    expect(parseAcceptLanguage(' fr ; q=0.125 ,en;Q=0.9,  de ;q=1.000')).toEqual(['de', 'en', 'fr']);
  });

  it('drops q=0 (not acceptable) and the wildcard', () => {
    expect(parseAcceptLanguage('pt;q=0, *;q=0.5, en')).toEqual(['en']);
    expect(parseAcceptLanguage('pt;q=0.000')).toEqual([]);
  });

  it('skips malformed entries instead of refusing the header', () => {
    expect(parseAcceptLanguage('!!!, en;q=abc, de;q=1.5, fr;q=0.7, , pt_BR, es')).toEqual(['es', 'fr']);
  });

  it('keeps the languages as sent (case included)', () => {
    expect(parseAcceptLanguage('PT-br')).toEqual(['PT-br']);
  });

  it('reads at most 32 entries of a long header', () => {
    const header = Array.from({ length: 100 }, (_, i) => `x${String.fromCharCode(97 + (i % 26))}`).join(', ');
    expect(parseAcceptLanguage(header)).toHaveLength(32);
  });
});

describe('fallbackChain', () => {
  it.each([
    ['en', ['en']],
    ['pt-BR', ['pt-BR', 'pt']],
    ['zh-Hant-TW', ['zh-Hant-TW', 'zh-Hant', 'zh']],
    ['en-x-pirate', ['en-x-pirate', 'en']],
  ])('%s falls back through %j', (tag, chain) => {
    expect(fallbackChain(tag)).toEqual(chain);
  });
});

describe('resolveText', () => {
  it.each([
    [['pt-BR'], 'pt-BR', 'Oi!'],
    [['pt-PT'], 'pt', 'Olá!'],
    [['pt'], 'pt', 'Olá!'],
    [['PT-br'], 'pt-BR', 'Oi!'],
    [['zh-Hant-TW'], 'zh-Hant', '你好！'],
    [['zh-Hans'], 'default', 'Hello!'],
    [['de-ch'], 'DE-ch', 'Grüezi!'],
    [['fr'], 'default', 'Hello!'],
    [[], 'default', 'Hello!'],
  ])('for %j answers the %s text', (preferences, language, text) => {
    expect(resolveText(TEXTS, preferences)).toEqual({ language, text });
  });

  it("tries each preference's fallbacks before the next preference (RFC 4647 lookup)", () => {
    expect(resolveText(TEXTS, ['pt-PT', 'en'])).toEqual({ language: 'pt', text: 'Olá!' });
    expect(resolveText(TEXTS, ['fr-CA', 'en-GB'])).toEqual({ language: 'en', text: 'Hello!' });
  });

  it('never picks the default key for a preference that spells it', () => {
    expect(resolveText({ default: 'Hi', fr: 'Salut' }, ['default', 'fr'])).toEqual({ language: 'fr', text: 'Salut' });
  });

  it('answers the default when only the default exists', () => {
    expect(resolveText({ default: 'Hi' }, ['en', 'pt-BR'])).toEqual({ language: 'default', text: 'Hi' });
  });
});

describe('localizedTextProblems', () => {
  it('finds nothing wrong with default and well-formed tags', () => {
    expect(localizedTextProblems(TEXTS)).toEqual([]);
    expect(localizedTextProblems({ default: '' })).toEqual([]);
  });

  it.each([
    ['a missing default', { en: 'Hi' }, /default/],
    ['a malformed tag', { default: 'Hi', pt_BR: 'Oi' }, /"pt_BR"/],
    ['a word for a tag', { default: 'Hi', english: 'Hi' }, /"english"/],
    ['one language in two cases', { default: 'Hi', 'pt-BR': 'Oi', 'PT-br': 'Oi' }, /"pt-BR" and "PT-br"/],
    ['a text that is not a string', { default: 'Hi', en: 5 }, /"en"/],
    ['a null text', { default: null }, /"default"/],
    ['a text of 100001 characters', { default: 'x'.repeat(100_001) }, /"default"/],
    ['an array', ['Hi'], /must be an object/],
    ['null', null, /must be an object/],
    ['a string', 'Hi', /must be an object/],
  ])('reports %s', (_case, value, problem) => {
    expect(localizedTextProblems(value).join('; ')).toMatch(problem);
  });

  it('accepts 200 keys and refuses 201', () => {
    const keys = (count: number) =>
      Object.fromEntries([['default', 'x'], ...Array.from({ length: count - 1 }, (_, i) => [`en-${String(i).padStart(3, '0')}`, 'x'])]);
    expect(localizedTextProblems(keys(200))).toEqual([]);
    expect(localizedTextProblems(keys(201))).toEqual(['must have at most 200 languages']);
  });

  it('lists every problem at once', () => {
    expect(localizedTextProblems({ en: 1, pt_BR: 'x' })).toHaveLength(3);
  });
});
