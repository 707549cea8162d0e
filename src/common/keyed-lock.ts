/**
 * In-process FIFO locks by key. They do not replace the database's row locks (other instances do not
 * see them); they keep requests that would only queue on the same rows from each holding a pooled
 * connection while they wait, so that one hot key cannot starve the pool for everyone else.
 * Keys are taken in sorted order, so two callers wanting overlapping keys cannot deadlock.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(keys: string[], work: () => Promise<T>): Promise<T> {
    const releases: Array<() => void> = [];
    try {
      for (const key of [...new Set(keys)].sort()) {
        const previous = this.tails.get(key) ?? Promise.resolve();
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const tail = previous.then(() => held);
        this.tails.set(key, tail);
        releases.push(() => {
          release();
          if (this.tails.get(key) === tail) this.tails.delete(key);
        });
        await previous;
      }
      return await work();
    } finally {
      for (const release of releases) release();
    }
  }

  /** Keys currently held or awaited (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
