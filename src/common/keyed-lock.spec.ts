import { setTimeout as sleep } from 'node:timers/promises';
import { KeyedLock } from './keyed-lock.js';

describe('KeyedLock', () => {
  it('runs work on the same key one at a time, in arrival order', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    const task = (name: string, ms: number) =>
      lock.run(['persona-a'], async () => {
        events.push(`${name} start`);
        await sleep(ms);
        events.push(`${name} end`);
      });
    await Promise.all([task('first', 20), task('second', 1), task('third', 1)]);
    expect(events).toEqual(['first start', 'first end', 'second start', 'second end', 'third start', 'third end']);
    expect(lock.size).toBe(0);
  });

  it('lets work on different keys overlap', async () => {
    const lock = new KeyedLock();
    let running = 0;
    let most = 0;
    const task = (key: string) =>
      lock.run([key], async () => {
        most = Math.max(most, ++running);
        await sleep(10);
        running -= 1;
      });
    await Promise.all([task('a'), task('b'), task('c')]);
    expect(most).toBe(3);
  });

  it('never deadlocks on overlapping key sets given in any order', async () => {
    const lock = new KeyedLock();
    let done = 0;
    await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        lock.run(index % 2 ? ['x', 'y'] : ['y', 'x'], async () => {
          await sleep(0);
          done += 1;
        }),
      ),
    );
    expect(done).toBe(50);
    expect(lock.size).toBe(0);
  });

  it('releases the key when the work fails', async () => {
    const lock = new KeyedLock();
    await expect(lock.run(['k'], () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lock.run(['k'], () => Promise.resolve('after'))).resolves.toBe('after');
    expect(lock.size).toBe(0);
  });
});
