/** One change of a record's rank key, as the log holds it (`removed` and `added` null where there is none). */
export interface RankChange {
  seq: number;
  periodUid: string;
  removed: string | null;
  added: string | null;
}

/**
 * Where a rank structure stands in the log of rank-key changes: every change up to `after` is
 * applied, except the `gaps`, numbers it has not seen (taken by a transaction still running, or one
 * that rolled back). Log numbers are handed out in the statement that writes a change, so a change
 * may commit after a later one: it is read, and applied, when it shows up. Applying changes in any
 * order is right (a key is added once and removed once, and a removal that comes first cancels its
 * addition: RankSet), so the cursor only has to apply each change exactly once. A gap is watched for
 * as long as the log keeps rows; past that it can only have been a rollback.
 */
export class ChangeCursor {
  /** Gap number → when it was first seen (epoch ms). */
  private readonly gaps = new Map<number, number>();

  constructor(public after = 0) {}

  /** The numbers below `after` still awaited. */
  get awaited(): number[] {
    return [...this.gaps.keys()];
  }

  /** Whether the change `seq` is applied. */
  applied(seq: number): boolean {
    return seq <= this.after && !this.gaps.has(seq);
  }

  /**
   * Of a batch read as `seq > after OR seq IN awaited` (in any order, possibly cut short by a limit),
   * the changes not applied yet, each once; the numbers the batch skipped past become gaps.
   */
  take(batch: readonly RankChange[], now: number): RankChange[] {
    const fresh: RankChange[] = [];
    const seen = new Set<number>();
    let highest = this.after;
    for (const change of [...batch].sort((left, right) => left.seq - right.seq)) {
      if (seen.has(change.seq) || this.applied(change.seq)) continue;
      seen.add(change.seq);
      fresh.push(change);
      this.gaps.delete(change.seq);
      highest = Math.max(highest, change.seq);
    }
    for (let seq = this.after + 1; seq < highest; seq++) if (!seen.has(seq)) this.gaps.set(seq, now);
    this.after = highest;
    return fresh;
  }

  /** Stops awaiting the numbers first awaited before `before` (epoch ms): the log no longer keeps them. */
  forget(before: number): void {
    for (const [seq, since] of this.gaps) if (since < before) this.gaps.delete(seq);
  }

  /** As text, for a structure shared between instances (Redis) to keep beside its keys. */
  serialize(): string {
    return JSON.stringify({ after: this.after, gaps: [...this.gaps] });
  }

  static parse(text: string): ChangeCursor {
    const { after, gaps } = JSON.parse(text) as { after: number; gaps: [number, number][] };
    const cursor = new ChangeCursor(after);
    for (const [seq, since] of gaps) cursor.gaps.set(seq, since);
    return cursor;
  }
}
