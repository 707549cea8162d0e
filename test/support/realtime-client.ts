import { WebSocket } from 'ws';

/** A frame of /realtime: an event, or the `realtime.ready` frame that opens every socket. */
export interface Frame {
  id: string;
  type: string;
  at: string;
  data: any;
}

export interface ConnectOptions {
  token?: string;
  ticket?: string;
  after?: string;
  headers?: Record<string, string>;
  /** Give up on an upgrade the server has not answered within this many milliseconds. */
  handshakeTimeout?: number;
}

/** A refused upgrade: the HTTP status and the body the server answered with. */
export class RefusedUpgrade extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
    readonly headers: Record<string, string | string[] | undefined>,
  ) {
    super(`upgrade refused with ${status}: ${JSON.stringify(body)}`);
  }
}

/** The server opened the socket and closed it before its first frame (the code says why). */
export class ClosedAtOnce extends Error {
  constructor(readonly code: number) {
    super(`the socket was closed at once with ${code}`);
  }
}

/**
 * A real WebSocket client of /realtime for the tests (the `ws` package, as a game server would use):
 * collects every frame, and waits for those a test expects.
 */
export class RealtimeClient {
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    void this.closed.then(() => this.waiters.splice(0).forEach((wake) => wake()));
  }

  /** Opens a socket; resolves once the `realtime.ready` frame came, rejects with RefusedUpgrade when refused. */
  static connect(baseUrl: string, options: ConnectOptions = {}): Promise<RealtimeClient> {
    const url = new URL('/realtime', baseUrl.replace(/^http/, 'ws'));
    if (options.ticket !== undefined) url.searchParams.set('ticket', options.ticket);
    if (options.after !== undefined) url.searchParams.set('after', options.after);
    const headers = { ...options.headers, ...(options.token && { authorization: `jwt ${options.token}` }) };
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers, handshakeTimeout: options.handshakeTimeout });
      socket.once('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: kept as text, and the test says so
          }
          reject(new RefusedUpgrade(response.statusCode ?? 0, body, response.headers));
          // A refusal handled here is ours to end: the socket then closes, and the wait for its ready frame with it.
          socket.terminate();
        });
      });
      socket.once('error', reject);
      const client = new RealtimeClient(socket);
      void client
        .waitFor((frame) => frame.type === 'realtime.ready', 10_000)
        .then(
          () => resolve(client),
          async (error: Error) => reject(socket.readyState === WebSocket.CLOSED ? new ClosedAtOnce((await client.closed).code) : error),
        );
    });
  }

  /** The event frames (the ready frame left out). */
  get events(): Frame[] {
    return this.frames.filter((frame) => frame.type !== 'realtime.ready');
  }

  /** The id of the last frame received, to resume from. */
  get lastId(): string {
    return this.frames[this.frames.length - 1].id;
  }

  /** Resolves with the first frame matching `predicate` (one received already counts). */
  async waitFor(predicate: (frame: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(predicate);
      if (found) return found;
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error(`socket closed before the frame came; got ${this.describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no such frame within ${timeoutMs} ms; got ${this.describe()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until `count` events (not counting the ready frame) have come. */
  async waitForEvents(count: number, timeoutMs = 10_000): Promise<Frame[]> {
    await this.waitFor(() => this.events.length >= count, timeoutMs);
    return this.events;
  }

  async close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.close();
    await this.closed;
  }

  private describe(): string {
    return JSON.stringify(this.frames.map((frame) => frame.type));
  }
}
