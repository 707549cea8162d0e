import { OrderedSet } from 'js-sdsl';

const byBytes = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/**
 * The ranked records of one period, in process: their rank keys in a red-black tree that counts each
 * subtree (js-sdsl's OrderedSet with its index enabled), so that a key's rank, a page after a key and
 * the keys around one each cost O(log n), not a scan. Keys are unique and each is added once and
 * removed once; a removal that arrives before its addition (two changes of one record read in
 * another order than they committed) is remembered and cancels the addition, so changes may be
 * applied in any order.
 */
export class RankSet {
  private readonly tree = new OrderedSet<string>([], byBytes, true);
  private readonly early = new Set<string>();

  get size(): number {
    return this.tree.size();
  }

  add(key: string): void {
    if (this.early.delete(key)) return;
    this.tree.insert(key);
  }

  remove(key: string): void {
    if (!this.tree.eraseElementByKey(key)) this.early.add(key);
  }

  has(key: string): boolean {
    return !this.tree.find(key).equals(this.tree.end());
  }

  /** How many keys rank before `key` (whether `key` is there or not). */
  countBefore(key: string): number {
    const at = this.tree.lowerBound(key);
    return at.equals(this.tree.end()) ? this.size : at.index;
  }

  /** Up to `count` keys after `key` (from the first when undefined), in rank order. */
  after(key: string | undefined, count: number): string[] {
    const keys: string[] = [];
    const end = this.tree.end();
    for (let at = key === undefined ? this.tree.begin() : this.tree.upperBound(key); keys.length < count && !at.equals(end); at.next()) {
      keys.push(at.pointer);
    }
    return keys;
  }

  /** Up to `count` keys before `key`, in rank order. */
  before(key: string, count: number): string[] {
    const keys: string[] = [];
    const [begin, end] = [this.tree.begin(), this.tree.end()];
    // The last key below `key`, walked backwards.
    for (let at = this.tree.reverseUpperBound(key); keys.length < count && !at.equals(end); at.pre()) {
      keys.push(at.pointer);
      if (at.equals(begin)) break;
    }
    return keys.reverse();
  }

  /** Loads keys already in rank order (a rebuild). */
  static of(sortedKeys: Iterable<string>): RankSet {
    const set = new RankSet();
    for (const key of sortedKeys) set.tree.insert(key);
    return set;
  }
}
