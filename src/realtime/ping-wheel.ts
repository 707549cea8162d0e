/**
 * Spreads the keep-alive pings of every socket over the ping interval: the interval is cut into ticks,
 * each socket is placed on one of them (in turn, so that they fill evenly), and each tick pings only
 * its own sockets. Pinging all of them in one turn of the event loop held every event back for as long
 * as that took, a few hundred milliseconds at 19,000 sockets (docs/PERFORMANCE.md); a tick's share
 * takes a millisecond. Each socket is still pinged once per interval.
 */
export class PingWheel<T> {
  private readonly slots: Array<Set<T>>;
  private placed = 0;
  private turn = 0;

  constructor(
    intervalMs: number,
    /** The shortest tick: below it, fewer slots. */
    minimumTickMs = 100,
    /** The most slots: a long interval gets longer ticks rather than thousands of empty slots. */
    maximumSlots = 1000,
  ) {
    const slots = Math.min(maximumSlots, Math.max(1, Math.floor(intervalMs / minimumTickMs)));
    this.slots = Array.from({ length: slots }, () => new Set<T>());
    this.tickMs = intervalMs / this.slots.length;
  }

  /** How often `due` is to be called: a round of every slot takes the interval. */
  readonly tickMs: number;

  /** Places an item on the slot whose turn is furthest off in the placing order; answers that slot. */
  add(item: T): number {
    const slot = this.placed++ % this.slots.length;
    this.slots[slot].add(item);
    return slot;
  }

  remove(item: T, slot: number): void {
    this.slots[slot]?.delete(item);
  }

  /** The items of the next tick (iterate it before the next call; removing from it meanwhile is safe). */
  due(): ReadonlySet<T> {
    const slot = this.slots[this.turn];
    this.turn = (this.turn + 1) % this.slots.length;
    return slot;
  }

  get size(): number {
    return this.slots.reduce((sum, slot) => sum + slot.size, 0);
  }
}
