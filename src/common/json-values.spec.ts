import { nonFiniteNumberPath } from './json-values.js';

describe('JSON values', () => {
  it('finds the first non-finite number, or none', () => {
    expect(nonFiniteNumberPath({ a: [{ b: 1 }, { c: Infinity }], d: NaN })).toEqual(['a', '1', 'c']);
    expect(nonFiniteNumberPath(-Infinity)).toEqual([]);
    expect(nonFiniteNumberPath({ a: [{ b: 1 }], c: 'Infinity', d: null })).toBeUndefined();
  });
});
