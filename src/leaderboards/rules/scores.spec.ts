import { int64Json, int64Problem, parseInt64 } from './scores.js';

describe('64-bit scores', () => {
  it('takes safe integers and decimal strings of any int64, negative too', () => {
    expect(parseInt64(42)).toBe(42n);
    expect(parseInt64(-7)).toBe(-7n);
    expect(parseInt64('9223372036854775807')).toBe(9223372036854775807n);
    expect(parseInt64('-9223372036854775808')).toBe(-9223372036854775808n);
    expect(parseInt64('12')).toBe(12n);
  });

  it('refuses floats, NaN, infinities, unsafe numbers, out-of-range strings and other shapes', () => {
    for (const bad of [
      1.5,
      NaN,
      Infinity,
      -Infinity,
      2 ** 53,
      '9223372036854775808',
      '-9223372036854775809',
      '1e3',
      '01',
      ' 1',
      '',
      true,
      null,
      {},
      [],
    ]) {
      expect(parseInt64(bad)).toBeUndefined();
    }
    expect(int64Problem(2 ** 60)).toMatch(/string/);
    expect(int64Problem(1.5)).toMatch(/integer/);
  });

  it('answers numbers while they are exact, strings beyond', () => {
    expect(int64Json('9007199254740991')).toBe(9007199254740991);
    expect(int64Json('-9007199254740991')).toBe(-9007199254740991);
    expect(int64Json('9007199254740992')).toBe('9007199254740992');
    expect(int64Json(-9223372036854775808n)).toBe('-9223372036854775808');
    expect(int64Json(null)).toBeNull();
  });
});
