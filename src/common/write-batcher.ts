/**
 * Appends items in batches: `add` resolves once its item is written. One write runs at a time, and
 * the items that arrive meanwhile go together in the next, so that under load many items cost one
 * statement and one commit, and alone an item waits for nothing. A batch that fails is written again
 * item by item, so that one bad item fails only its own caller.
 *
 * Our own rather than DataLoader's: DataLoader batches what arrives within one tick and runs batches
 * side by side, where an append-only log wants the batch to grow while the previous write commits.
 */
export class WriteBatcher<T> {
  private readonly queue: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    /** The most items one write takes. */
    private readonly maxBatch: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          await this.write(batch.map(({ item }) => item));
          for (const waiting of batch) waiting.resolve();
        } catch (error) {
          if (batch.length === 1) batch[0].reject(error);
          else for (const waiting of batch) await this.write([waiting.item]).then(waiting.resolve, waiting.reject);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
