import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A WebSocket opened by hand, for the frames no well-behaved client library sends (an unmasked frame,
 * a reserved opcode, invalid UTF-8, a length over the limit). It reads the server's frames, which are
 * never masked, just enough to know the first one came and which close code the server sent.
 */
export class RawWebSocket {
  private received: Buffer;
  /** Resolves once the connection has ended, with the code of the server's close frame (undefined: none). */
  readonly closed: Promise<number | undefined>;
  private frameArrived: () => void = () => undefined;

  private constructor(
    private readonly socket: Socket,
    head: Buffer,
  ) {
    this.received = head;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.frameArrived();
    });
    // The server may drop the connection while a frame is still being written: nothing to report.
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve(this.frames().find((frame) => frame.opcode === 8)?.code)));
  }

  /** Upgrades `GET /realtime` on `baseUrl` (http://…) with these headers; rejects when not answered 101. */
  static open(baseUrl: string, headers: Record<string, string>): Promise<RawWebSocket> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(new URL('/realtime', baseUrl), {
        headers: {
          ...headers,
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': randomBytes(16).toString('base64'),
        },
      });
      request.once('upgrade', (_response, socket: Socket, head: Buffer) => resolve(new RawWebSocket(socket, head)));
      request.once('response', (response) => reject(new Error(`the upgrade was answered ${response.statusCode}`)));
      request.once('error', reject);
      request.end();
    });
  }

  /** Waits for the server's first frame (the socket's ready frame). */
  async firstFrame(): Promise<void> {
    while (this.frames().length === 0) {
      await new Promise<void>((resolve) => (this.frameArrived = resolve));
    }
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** The complete frames received so far. */
  private frames(): Array<{ opcode: number; code?: number }> {
    const frames: Array<{ opcode: number; code?: number }> = [];
    for (let offset = 0; offset + 2 <= this.received.length;) {
      const opcode = this.received[offset] & 0x0f;
      let length = this.received[offset + 1] & 0x7f;
      let start = offset + 2;
      if (length === 126) {
        if (start + 2 > this.received.length) break;
        length = this.received.readUInt16BE(start);
        start += 2;
      } else if (length === 127) {
        if (start + 8 > this.received.length) break;
        length = Number(this.received.readBigUInt64BE(start));
        start += 8;
      }
      if (start + length > this.received.length) break;
      frames.push({ opcode, code: opcode === 8 && length >= 2 ? this.received.readUInt16BE(start) : undefined });
      offset = start + length;
    }
    return frames;
  }
}

/**
 * A client frame: FIN set, `opcode`, the payload masked with a random key unless `masked` is false, and
 * `declaredLength` in the header when it should claim another length than the payload's (up to 2^53).
 */
export function clientFrame(opcode: number, payload: Buffer, options: { masked?: boolean; declaredLength?: number } = {}): Buffer {
  const masked = options.masked ?? true;
  const length = options.declaredLength ?? payload.length;
  const maskBit = masked ? 0x80 : 0;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x80 | opcode, maskBit | length]);
  } else if (length < 0x10000) {
    header = Buffer.alloc(4);
    header.writeUInt8(0x80 | opcode, 0);
    header.writeUInt8(maskBit | 126, 1);
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header.writeUInt8(0x80 | opcode, 0);
    header.writeUInt8(maskBit | 127, 1);
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!masked) return Buffer.concat([header, payload]);
  const key = randomBytes(4);
  const body = Buffer.from(payload.map((byte, index) => byte ^ key[index % 4]));
  return Buffer.concat([header, key, body]);
}
