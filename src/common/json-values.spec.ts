import { smallJsonObjectProblem, storableJsonProblem } from './json-values.js';

describe('JSON values', () => {
  it('takes what JSON and jsonb hold as sent', () => {
    expect(storableJsonProblem({ a: [{ b: 1 }], c: 'Infinity', d: null, e: -1.5e300, name: 'Ærøskøbing 東京 🎮' })).toBeUndefined();
    expect(storableJsonProblem('text')).toBeUndefined();
  });

  it('finds a number beyond the finite range, saying where', () => {
    expect(storableJsonProblem({ a: [{ b: 1 }, { c: Infinity }] })).toBe('holds a number beyond the finite range at a.1.c');
    expect(storableJsonProblem(-Infinity)).toBe('holds a number beyond the finite range');
    expect(storableJsonProblem({ x: NaN })).toBe('holds a number beyond the finite range at x');
  });

  it('finds texts and keys jsonb refuses', () => {
    expect(storableJsonProblem({ tags: ['ok', '\uD800'] })).toContain('cannot be stored (U+0000, or half of a surrogate pair) at tags.1');
    expect(storableJsonProblem({ inner: { 'a\u0000': 1 } })).toBe(
      'holds a key that cannot be stored (U+0000, or half of a surrogate pair) at inner',
    );
    expect(storableJsonProblem({ pair: '\uD83C\uDFAE' })).toBeUndefined();
  });

  it('walks a value far deeper than any stack, without recursion', () => {
    let deep: unknown = Infinity;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(storableJsonProblem(deep)).toMatch(/^holds a number beyond the finite range at 0(\.0)+$/);
  });

  it('bounds metadata by its bytes and refuses non-finite numbers in it (issue 47: 1e999 was stored as null)', () => {
    expect(smallJsonObjectProblem({ season: 3 }, 16)).toBeUndefined();
    expect(smallJsonObjectProblem({ x: Infinity }, 2048)).toBe('holds a number beyond the finite range at x');
    expect(smallJsonObjectProblem({ notes: 'x'.repeat(20) }, 16)).toBe('must be a JSON object of at most 16 bytes');
    expect(smallJsonObjectProblem([1], 2048)).toBe('must be a JSON object of at most 2048 bytes');
    expect(smallJsonObjectProblem(null, 2048)).toBe('must be a JSON object of at most 2048 bytes');
  });
});
