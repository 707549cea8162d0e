/**
 * A catch-up that callers share: one runs at a time, and a caller arriving while one runs waits for
 * the next (the running one may have read the log before the caller's write committed), which every
 * caller arriving meanwhile shares: one log read serves them all.
 */
export class SharedRun {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly body: () => Promise<void>) {}

  /** A run that starts after the call. */
  request(): Promise<void> {
    if (this.next) return this.next;
    if (!this.running) return this.launch();
    this.next = this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.launch();
      });
    return this.next;
  }

  /** Waits for the run under way, if any, whatever its outcome. */
  async settled(): Promise<void> {
    await this.next?.catch(() => undefined);
    await this.running?.catch(() => undefined);
  }

  private launch(): Promise<void> {
    this.running = this.body().finally(() => (this.running = undefined));
    return this.running;
  }
}
