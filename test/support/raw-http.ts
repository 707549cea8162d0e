import { connect, type Socket } from 'node:net';

/** An answer read off a raw connection: status, headers (lower-case names) and body (parsed when JSON). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/**
 * A TCP connection to the service, driven byte by byte: for what no HTTP client sends (headers that
 * never end, a body that stops halfway, malformed header lines) and to hold connections open. It
 * records what the server sends and when it closes the connection.
 */
export class RawConnection {
  private received = Buffer.alloc(0);
  private arrived: () => void = () => undefined;
  /** Resolves once the connection has ended, whoever ended it. */
  readonly closed: Promise<void>;
  private ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.arrived();
    });
    // A server that closes a connection with unread bytes resets it: the close is what a test looks at.
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        this.arrived();
        resolve();
      }),
    );
  }

  /** Connects to `baseUrl` (http://host:port), from `localAddress` when given (127.0.0.2, … on loopback). */
  static open(baseUrl: string, localAddress?: string): Promise<RawConnection> {
    const url = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Whether the connection has ended. */
  get isClosed(): boolean {
    return this.ended;
  }

  /** Everything the server has sent so far. */
  get text(): string {
    return this.received.toString('latin1');
  }

  send(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  /**
   * Waits for a whole answer (its headers and Content-Length bytes of body) and reads it; rejects when
   * the connection ends first, saying what came.
   */
  async answer(): Promise<RawAnswer> {
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.ended) throw new Error(`the connection closed without a whole answer; it sent ${JSON.stringify(this.text)}`);
      await new Promise<void>((resolve) => (this.arrived = resolve));
    }
  }

  /** A GET of `path` on this connection (kept alive), and its answer. */
  async get(path: string): Promise<RawAnswer> {
    this.received = Buffer.alloc(0);
    this.send(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    return this.answer();
  }

  destroy(): Promise<void> {
    this.socket.destroy();
    return this.closed;
  }

  private parse(): RawAnswer | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.received.length < end + 4 + length) return undefined;
    const text = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
    const body: unknown = headers['content-type']?.startsWith('application/json') ? JSON.parse(text) : text;
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}
