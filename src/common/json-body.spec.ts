import { JsonShapeCounter, jsonTextOver, parseJsonBody as parseBuffer } from './json-body.js';

const parseJsonBody = (text: string, limit: { nodes: number; depth: number }) => parseBuffer(Buffer.from(text), limit);
import type { ApiException } from './errors.js';

const roomy = { nodes: 1_000_000, depth: 1_000 };

/** The values a parsed JSON value holds, counted the slow way: the scan must agree with it. */
function valuesIn(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1;
  return 1 + Object.values(value).reduce((sum: number, inner) => sum + valuesIn(inner), 0);
}

/** The smallest limit the scan lets `text` through: its count of values. */
function scannedValues(text: string): number {
  let low = 1;
  let high = 1_000_000;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (jsonTextOver(text, { nodes: middle, depth: 1_000 }) === 'nodes') low = middle + 1;
    else high = middle;
  }
  return low;
}

const refusal = (text: string, limit: { nodes: number; depth: number }) => {
  try {
    parseJsonBody(text, limit);
  } catch (error) {
    const { code, extra } = error as ApiException;
    return { status: (error as ApiException).getStatus(), code, errors: extra.errors };
  }
  throw new Error('parsed');
};

describe('the JSON body budget', () => {
  it.each([
    ['a scalar', '7'],
    ['an empty object', '{}'],
    ['an empty array', '[ ]'],
    ['an object of scalars', '{"a":1,"b":"two","c":true,"d":null}'],
    ['arrays of arrays', '[[],[[]],[1,[2,3]],{}]'],
    ['a sign-in with junk', '{"deviceId":"abcdefghijklmnopqrstuvwxyz","junk":[{},{},{},{}]}'],
    ['strings that look like structure', '{"a":"[{,:}]","b":["\\"]",":"],"c":"\\\\"}'],
    ['whitespace everywhere', ' {\n "a" :\t[ 1 , 2 ]\r\n} '],
    ['keys with escapes', '{"\\u0041\\"":{"x\\\\":[]}}'],
  ])('counts the values of %s as a parse would', (_case, text) => {
    expect(scannedValues(text)).toBe(valuesIn(JSON.parse(text)));
  });

  it('refuses a body of many tiny objects before parsing it (issue 47: 340,000 cost seconds)', () => {
    const text = `{"deviceId":"abcdefghijklmnopqrstuvwxyz","junk":[${Array(340_000).fill('{}').join(',')}]}`;
    expect(jsonTextOver(text, { nodes: 4096, depth: 64 })).toBe('nodes');
    expect(refusal(text, { nodes: 4096, depth: 64 })).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      errors: [{ field: 'body', message: 'holds more than 4096 values' }],
    });
  });

  it('takes a body at the limit and refuses one value more', () => {
    const text = `[${Array(99).fill('0').join(',')}]`;
    expect(jsonTextOver(text, { nodes: 100, depth: 2 })).toBeUndefined();
    expect(jsonTextOver(`[${Array(100).fill('0').join(',')}]`, { nodes: 100, depth: 2 })).toBe('nodes');
  });

  it('counts levels as the body itself being level 1', () => {
    expect(jsonTextOver('{"a":[{}]}', { nodes: 10, depth: 3 })).toBeUndefined();
    expect(jsonTextOver('{"a":[{"b":[]}]}', { nodes: 10, depth: 3 })).toBe('depth');
    expect(refusal('[[[[]]]]', { nodes: 10, depth: 3 })).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'body', message: 'nests deeper than 3 levels' }],
    });
  });

  it('counts a text fed in pieces as it counts it whole, wherever the pieces break (strings, escapes, multi-byte characters)', () => {
    const texts = [
      '{"a":"x\\\\","b":["\\"]",":", "Ærø 東京 🎮"],"c":{"d":[[],{}]}}',
      '["\\\\\\"\\\\",1,2]',
      `{"deviceId":"abcdefghijklmnopqrstuvwxyz","junk":[${Array(40).fill('{}').join(',')}]}`,
    ];
    for (const text of texts) {
      const bytes = Buffer.from(text);
      expect(JSON.parse(text)).toBeDefined();
      for (const limit of [
        { nodes: 1_000, depth: 100 },
        { nodes: 20, depth: 100 },
        { nodes: 1_000, depth: 2 },
      ]) {
        const whole = new JsonShapeCounter(limit).feed(bytes);
        for (let cut = 0; cut <= bytes.length; cut++) {
          const counter = new JsonShapeCounter(limit);
          const first = counter.feed(bytes.subarray(0, cut));
          expect({ text, cut, limit, over: first ?? counter.feed(bytes.subarray(cut)) }).toEqual({ text, cut, limit, over: whole });
        }
        const byByte = new JsonShapeCounter(limit);
        let over: string | undefined;
        for (let index = 0; index < bytes.length && !over; index++) over = byByte.feed(bytes.subarray(index, index + 1));
        expect(over).toEqual(whole);
      }
    }
  });

  it('copes with a text nested far deeper than any stack', () => {
    expect(jsonTextOver('['.repeat(200_000), { nodes: 1_000_000, depth: 64 })).toBe('depth');
  });

  it('leaves malformed text to the parser, which refuses it', () => {
    for (const text of ['{"a":', '"open', '}}]]', '{"a" 1}']) {
      expect(() => jsonTextOver(text, roomy)).not.toThrow();
      expect(() => parseJsonBody(text, roomy)).toThrow();
    }
  });

  it('parses what it lets through, and refuses prototype keys by name', () => {
    expect(parseJsonBody('{"a":[1,{"b":null}]}', roomy)).toEqual({ a: [1, { b: null }] });
    expect(refusal('{"__proto__":{"admin":true}}', roomy).errors).toEqual([{ field: 'body', message: 'holds a "__proto__" key' }]);
    expect(refusal('{"constructor":{"prototype":{}}}', roomy).errors).toEqual([
      { field: 'body', message: 'holds "constructor.prototype"' },
    ]);
  });
});
