import { PROGRESS_LIMIT, PROGRESS_SUM_OUT_OF_RANGE, progressValueProblem } from './progress-value.js';

describe('progress values', () => {
  it.each([
    ['a number', 5],
    ['the largest finite number', Number.MAX_VALUE],
    ['its negative', -Number.MAX_VALUE],
    ['the smallest positive number', Number.MIN_VALUE],
    ['a string', 'journeyman'],
    ['a boolean', false],
    ['an object with numbers', { tier: 2, xp: { total: 1e308, log: [1, -2.5] } }],
  ])('accepts %s', (_case, value) => {
    expect(progressValueProblem(value)).toBeUndefined();
  });

  it.each([
    ['Infinity', Infinity, 'is a number beyond the finite range'],
    ['-Infinity', -Infinity, 'is a number beyond the finite range'],
    ['NaN', NaN, 'is a number beyond the finite range'],
    [
      'Infinity in an object',
      { tier: 2, xp: { total: Infinity } },
      'holds a number beyond the finite range (±1.7976931348623157e+308) at xp.total',
    ],
    [
      '-Infinity in a list in an object',
      { scores: [1, -Infinity] },
      'holds a number beyond the finite range (±1.7976931348623157e+308) at scores.1',
    ],
    ['null', null, 'must be a finite number'],
    ['an array', [1, 2], 'must be a finite number'],
    ['a string of 10001 characters', 'y'.repeat(10_001), 'must be a finite number'],
    ['an object over 16 KiB', { notes: 'x'.repeat(16 * 1024) }, 'must be a finite number'],
  ])('refuses %s, saying where', (_case, value, problem) => {
    expect(progressValueProblem(value)).toContain(problem);
  });

  it('states the limit as JSON writes it, in the refusal of a sum', () => {
    expect(PROGRESS_LIMIT).toBe(Number.MAX_VALUE);
    expect(PROGRESS_SUM_OUT_OF_RANGE).toBe(
      'would take the progress beyond ±1.7976931348623157e+308, the largest finite number: nothing was added',
    );
  });
});
