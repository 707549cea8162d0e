import { MAX_BODY_DEPTH, nestsDeeperThan } from './validation.pipe.js';

/** A value nested `levels` deep: an object holding an array holding an object... */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < levels; level++) value = level % 2 === 0 ? [value] : { child: value };
  return value;
}

describe('nestsDeeperThan', () => {
  it('counts the body itself as level 1, and scalars as no level', () => {
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ a: {} }, 1)).toBe(true);
    expect(nestsDeeperThan('text', 0)).toBe(false);
  });

  it('accepts the limit and refuses one more, through objects and arrays alike', () => {
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
  });

  it('finds one deep branch among many shallow ones', () => {
    const wide = { many: Array.from({ length: 1000 }, (_, index) => ({ index })), deep: nested(100) };
    expect(nestsDeeperThan(wide, MAX_BODY_DEPTH)).toBe(true);
  });

  it('copes with a value far deeper than any stack, without recursion', () => {
    expect(nestsDeeperThan(nested(200_000), MAX_BODY_DEPTH)).toBe(true);
  });
});
