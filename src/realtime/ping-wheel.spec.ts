import { PingWheel } from './ping-wheel.js';

describe('PingWheel', () => {
  it('cuts the interval into ticks of at least the minimum', () => {
    expect(new PingWheel(30_000).tickMs).toBe(100);
    expect(new PingWheel(30_050).tickMs).toBeCloseTo(30_050 / 300);
    expect(new PingWheel(150).tickMs).toBe(150);
    expect(new PingWheel(50).tickMs).toBe(50);
    expect(new PingWheel(3_600_000).tickMs).toBe(3600);
  });

  it('gives each item exactly one turn per round of ticks, spread evenly', () => {
    const wheel = new PingWheel<number>(1000);
    for (let item = 0; item < 1005; item++) wheel.add(item);
    const seen: number[] = [];
    const sizes: number[] = [];
    for (let tick = 0; tick < 10; tick++) {
      const due = [...wheel.due()];
      sizes.push(due.length);
      seen.push(...due);
    }
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 1005 }, (_, item) => item));
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    // The next round starts over with the same items.
    expect([...wheel.due()]).toEqual(Array.from({ length: 101 }, (_, index) => index * 10));
  });

  it('forgets a removed item, and a removal during a tick leaves the rest of it due', () => {
    const wheel = new PingWheel<string>(100);
    const slots = ['a', 'b', 'c'].map((item) => [item, wheel.add(item)] as const);
    wheel.remove('b', slots[1][1]);
    const due: string[] = [];
    for (const item of wheel.due()) {
      due.push(item);
      wheel.remove('c', slots[2][1]);
    }
    expect(due).toEqual(['a']);
    expect(wheel.size).toBe(1);
  });
});
