import { ChangeCursor, type RankChange } from './change-cursor.js';

const change = (seq: number): RankChange => ({ seq, periodUid: 'p', removed: null, added: `k${seq}` });
const seqs = (changes: RankChange[]) => changes.map((entry) => entry.seq);

describe('the change cursor', () => {
  it('applies each change once, whatever order they commit in', () => {
    const cursor = new ChangeCursor(0);
    // 2 is still being written when 1 and 3 are read.
    expect(seqs(cursor.take([change(3), change(1)], 0))).toEqual([1, 3]);
    expect(cursor.after).toBe(3);
    expect(cursor.awaited).toEqual([2]);
    expect(cursor.applied(2)).toBe(false);
    // Read again: 1 and 3 come back (a concurrent reader's batch), 2 has committed.
    expect(seqs(cursor.take([change(1), change(2), change(3), change(4)], 1))).toEqual([2, 4]);
    expect(cursor.awaited).toEqual([]);
    expect(seqs(cursor.take([change(4), change(4)], 2))).toEqual([]);
  });

  it('stops awaiting a number the log can no longer hold (a rollback)', () => {
    const cursor = new ChangeCursor(10);
    cursor.take([change(13)], 1_000);
    expect(cursor.awaited).toEqual([11, 12]);
    cursor.forget(500);
    expect(cursor.awaited).toEqual([11, 12]);
    cursor.forget(2_000);
    expect(cursor.awaited).toEqual([]);
    expect(cursor.applied(12)).toBe(true);
  });

  it('comes back from its text as it was, gaps and their ages included', () => {
    const cursor = new ChangeCursor(10);
    cursor.take([change(13)], 1_000);
    const again = ChangeCursor.parse(cursor.serialize());
    expect(again.after).toBe(13);
    expect(again.awaited).toEqual([11, 12]);
    again.forget(2_000);
    expect(again.awaited).toEqual([]);
  });
});
