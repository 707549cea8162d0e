import { backoffDelay } from './retry.js';

describe('backoffDelay', () => {
  it('doubles from the first wait to the last, and stays there', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 20].map((attempt) => backoffDelay(attempt, 100, 5000, () => 1));
    expect(ceilings).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
  });

  it('takes a random share between half and all of it', () => {
    expect(backoffDelay(3, 100, 5000, () => 0)).toBe(200);
    expect(backoffDelay(3, 100, 5000, () => 0.5)).toBe(300);
    for (let attempt = 1; attempt < 12; attempt++) {
      const delay = backoffDelay(attempt, 100, 5000);
      expect(delay).toBeGreaterThanOrEqual(50);
      expect(delay).toBeLessThanOrEqual(5000);
    }
  });
});
