/**
 * Counts of the last minute, by second: requests and errors as they are answered, read as per-minute
 * figures by the admin stats. A ring of 60 slots, each stamped with its second, so that a quiet
 * second leaves no stale count behind and counting costs no allocation.
 */
export class RequestWindow {
  private readonly seconds = new Float64Array(60);
  private readonly requests = new Uint32Array(60);
  private readonly clientErrors = new Uint32Array(60);
  private readonly serverErrors = new Uint32Array(60);

  constructor(private readonly now: () => number = Date.now) {}

  count(status: number): void {
    const second = Math.floor(this.now() / 1000);
    const slot = second % 60;
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second;
      this.requests[slot] = 0;
      this.clientErrors[slot] = 0;
      this.serverErrors[slot] = 0;
    }
    this.requests[slot]++;
    if (status >= 500) this.serverErrors[slot]++;
    else if (status >= 400) this.clientErrors[slot]++;
  }

  /** The last 60 seconds, this one included. */
  lastMinute(): { requests: number; clientErrors: number; serverErrors: number } {
    const second = Math.floor(this.now() / 1000);
    const totals = { requests: 0, clientErrors: 0, serverErrors: 0 };
    for (let slot = 0; slot < 60; slot++) {
      if (second - this.seconds[slot] >= 60) continue;
      totals.requests += this.requests[slot];
      totals.clientErrors += this.clientErrors[slot];
      totals.serverErrors += this.serverErrors[slot];
    }
    return totals;
  }
}
