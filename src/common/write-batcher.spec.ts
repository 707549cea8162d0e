import { WriteBatcher } from './write-batcher.js';

/** A write that records each batch and finishes when the test says. */
function controlledWrite(fails: (items: number[]) => boolean = () => false) {
  const batches: number[][] = [];
  const pending: Array<() => void> = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(items);
      pending.push(() => (fails(items) ? reject(new Error(`bad batch ${items.join(',')}`)) : resolve()));
    });
  const finishNext = async () => {
    pending.shift()!();
    // Let the batcher see the result and start its next write.
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
  };
  return { write, batches, finishNext };
}

describe('WriteBatcher', () => {
  it('writes an item alone at once, and what arrives during a write together in the next', async () => {
    const { write, batches, finishNext } = controlledWrite();
    const batcher = new WriteBatcher(write, 100);
    const written: number[] = [];
    const add = (item: number) => batcher.add(item).then(() => written.push(item));

    const first = add(1);
    expect(batches).toEqual([[1]]);
    const rest = [2, 3, 4].map(add);
    expect(batches).toEqual([[1]]);

    await finishNext();
    await first;
    expect(written).toEqual([1]);
    expect(batches).toEqual([[1], [2, 3, 4]]);

    await finishNext();
    await Promise.all(rest);
    expect(written).toEqual([1, 2, 3, 4]);
  });

  it('takes at most maxBatch items a write', async () => {
    const { write, batches, finishNext } = controlledWrite();
    const batcher = new WriteBatcher(write, 2);
    const all = [1, 2, 3, 4, 5].map((item) => batcher.add(item));
    for (let write = 0; write < 3; write++) await finishNext();
    await Promise.all(all);
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('fails only the bad item of a failed batch, writing the others one by one', async () => {
    const { write, batches, finishNext } = controlledWrite((items) => items.includes(3));
    const batcher = new WriteBatcher(write, 100);
    const outcomes = [1, 2, 3, 4].map((item) =>
      batcher.add(item).then(
        () => 'written',
        (error: Error) => error.message,
      ),
    );
    // 1 alone; then 2, 3, 4 together (fails); then each alone.
    for (let write = 0; write < 5; write++) await finishNext();
    expect(await Promise.all(outcomes)).toEqual(['written', 'written', 'bad batch 3', 'written']);
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('writes again after a failure, and after going idle', async () => {
    const { write, batches, finishNext } = controlledWrite((items) => items.includes(1));
    const batcher = new WriteBatcher(write, 100);
    const failed = batcher.add(1);
    await finishNext();
    await expect(failed).rejects.toThrow('bad batch 1');
    const later = batcher.add(2);
    expect(batches).toEqual([[1], [2]]);
    await finishNext();
    await expect(later).resolves.toBeUndefined();
  });
});
