import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { WebSocket } from 'ws';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { REALTIME_CHANNEL } from './events.js';
import { type Cursor, formatCursor, NotificationsRepository } from './notifications.repository.js';

/** Close codes of /realtime (docs/REALTIME.md). */
export const CloseCode = {
  GOING_AWAY: 1001,
  TOKEN_EXPIRED: 4401,
  REVOKED: 4403,
  SLOW_CONSUMER: 4413,
  TOO_MANY_SOCKETS: 4429,
} as const;

/** One open socket: whose it is, and how far into the user's inbox it has been sent. */
interface Connection {
  socket: WebSocket;
  userUid: string;
  cursor: Cursor;
  /** Reading the inbox now (a read at a time per socket; a wake-up during it reads again after). */
  reading: boolean;
  again: boolean;
  /** Whether the socket answered the last ping. */
  alive: boolean;
  timers: NodeJS.Timeout[];
}

const PAGE = 100;
// The janitor's advisory lock: any fixed number.
const JANITOR_LOCK = 0x7265616c;

/**
 * Delivers the inbox over sockets. Committed events wake it through PostgreSQL's LISTEN/NOTIFY (the
 * notification names the recipients, never the payload); it then reads each woken socket's inbox from
 * its cursor, in order, and sends. An event not deliverable yet (an older transaction still runs) is
 * read again shortly. After the LISTEN connection was lost, every socket is read again, so nothing
 * written meanwhile is missed. Memory is bounded: a cap of sockets per user, and a socket whose unsent
 * data passes a bound is closed (it resumes from its last id).
 */
@Injectable()
export class RealtimeHub implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Realtime');
  private readonly connections = new Map<string, Set<Connection>>();
  private listener: pg.Client | undefined;
  private stopping = false;
  private readonly reads = new Set<Promise<void>>();
  private pingTimer: NodeJS.Timeout | undefined;
  private janitorTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly inbox: NotificationsRepository,
    private readonly metrics: MetricsService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
    this.pingTimer = setInterval(() => this.ping(), this.config.realtime.pingIntervalMs).unref();
    // The inbox is pruned hourly, and soon after a start; by one instance at a time.
    this.janitorTimer = setInterval(() => void this.prune(), 3600_000).unref();
    setTimeout(() => void this.prune(), 10_000).unref();
  }

  /**
   * Before Nest closes the WebSocket server (which would cut sockets off): sockets close with 1001 once
   * the events already read are sent, and the closing handshakes get a moment to finish.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pingTimer);
    clearInterval(this.janitorTimer);
    await Promise.allSettled([...this.reads]);
    const closing = [...this.all()].map(
      ({ socket }) =>
        new Promise<void>((resolve) => {
          socket.once('close', () => resolve());
          socket.close(CloseCode.GOING_AWAY, 'server shutting down');
        }),
    );
    await Promise.race([Promise.all(closing), sleep(1000)]);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.listener?.end().catch(() => undefined);
  }

  /** A socket opened by `userUid`: it is sent every event after `after` (or from now on), then live ones. */
  async attach(socket: WebSocket, userUid: string, tokenExpiresAt: Date, after: Cursor | undefined): Promise<void> {
    let own = this.connections.get(userUid);
    if (!own) this.connections.set(userUid, (own = new Set()));
    if (own.size >= this.config.realtime.maxSocketsPerUser) {
      socket.close(CloseCode.TOO_MANY_SOCKETS, `too many sockets for this user (at most ${this.config.realtime.maxSocketsPerUser})`);
      return;
    }
    // The slot is taken at once (the cursor comes from the database): sockets of one user opening
    // together count against the cap. Until the cursor is known, wake-ups wait (`reading`).
    const connection: Connection = { socket, userUid, cursor: { xid: 0n, id: 0n }, reading: true, again: false, alive: true, timers: [] };
    own.add(connection);
    this.metrics.openSockets.inc();
    socket.on('pong', () => (connection.alive = true));
    socket.once('close', () => this.detach(connection));
    const expiresIn = tokenExpiresAt.getTime() - Date.now();
    connection.timers.push(
      setTimeout(() => socket.close(CloseCode.TOKEN_EXPIRED, 'token expired: sign in again and resume'), Math.max(0, expiresIn)),
    );
    try {
      connection.cursor = after ?? (await this.inbox.now());
    } catch (error) {
      socket.close(1011, 'the inbox is unavailable: try again shortly');
      throw error;
    }
    // The first frame says where the socket starts, so that a client can resume without a gap even
    // before its first event.
    this.send(connection, { id: formatCursor(connection.cursor), type: 'realtime.ready', at: new Date().toISOString(), data: { userUid } });
    connection.reading = false;
    if (after || connection.again) this.wake(connection);
  }

  /** Closes every socket of the user (revocation, ban). */
  closeUser(userUid: string, code: number, reason: string): void {
    for (const connection of this.connections.get(userUid) ?? []) connection.socket.close(code, reason);
  }

  /** The sockets of this instance. */
  get size(): number {
    let count = 0;
    for (const own of this.connections.values()) count += own.size;
    return count;
  }

  private detach(connection: Connection): void {
    const own = this.connections.get(connection.userUid);
    if (!own?.delete(connection)) return;
    if (own.size === 0) this.connections.delete(connection.userUid);
    connection.timers.forEach(clearTimeout);
    this.metrics.openSockets.dec();
  }

  private *all(): Iterable<Connection> {
    for (const own of this.connections.values()) yield* own;
  }

  /** Reads the socket's inbox from its cursor and sends what is there; once at a time per socket. */
  private wake(connection: Connection): void {
    if (connection.reading) {
      connection.again = true;
      return;
    }
    connection.reading = true;
    const read = this.deliver(connection)
      .catch((error: unknown) => this.logger.warn(`reading the inbox of ${connection.userUid} failed: ${(error as Error).message}`))
      .finally(() => {
        connection.reading = false;
        this.reads.delete(read);
      });
    this.reads.add(read);
  }

  private async deliver(connection: Connection): Promise<void> {
    for (let wait = 5; ;) {
      connection.again = false;
      const page = await this.inbox.after(connection.userUid, connection.cursor, PAGE);
      for (const event of page.events) {
        if (connection.socket.readyState !== connection.socket.OPEN) return;
        this.send(connection, event);
        this.metrics.countDelivered(event.type, (Date.now() - Date.parse(event.at)) / 1000);
        const [xid, id] = event.id.split('-');
        connection.cursor = { xid: BigInt(xid), id: BigInt(id) };
      }
      if (page.full || connection.again) continue;
      if (!page.blocked || this.stopping) return;
      // An older transaction still runs; its end lets these events through. Read again shortly.
      await sleep(wait);
      wait = Math.min(wait * 2, 500);
    }
  }

  private send(connection: Connection, frame: object): void {
    const { socket } = connection;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > this.config.realtime.maxBufferedBytes) {
      socket.close(CloseCode.SLOW_CONSUMER, 'slow consumer: resume with ?after=<the last id received>');
      return;
    }
    socket.send(JSON.stringify(frame));
  }

  private ping(): void {
    for (const connection of this.all()) {
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }

  /** LISTENs on its own connection (a pooled one would be handed to others), and listens again after losing it. */
  private async listen(): Promise<void> {
    for (let attempt = 0; !this.stopping; attempt++) {
      const client = new pg.Client({ connectionString: this.config.databaseUrl, application_name: 'game-backend realtime' });
      try {
        await client.connect();
        client.on('notification', (message) => this.notified(message.payload));
        client.on('error', () => undefined);
        client.once('end', () => {
          if (this.stopping) return;
          this.logger.warn('lost the LISTEN connection: listening again, then reading every socket');
          void this.listen();
        });
        await client.query(`LISTEN ${REALTIME_CHANNEL}`);
        this.listener = client;
        // Whatever was written while nobody listened.
        if (attempt > 0 || this.size > 0) for (const connection of this.all()) this.wake(connection);
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (attempt === 0) this.logger.warn(`cannot LISTEN yet (${(error as Error).message}): trying again`);
        await sleep(Math.min(100 * 2 ** attempt, 5000));
      }
    }
  }

  private notified(payload: string | undefined): void {
    if (payload === '*') {
      for (const connection of this.all()) this.wake(connection);
      return;
    }
    for (const userUid of payload?.split(',') ?? []) {
      for (const connection of this.connections.get(userUid) ?? []) this.wake(connection);
    }
  }

  private async prune(): Promise<void> {
    try {
      const pruned = await this.inbox.alone(JANITOR_LOCK, () => this.inbox.prune(this.config.realtime.retentionSeconds));
      if (pruned) this.logger.log(`pruned ${pruned} events older than the retention`);
    } catch (error) {
      this.logger.warn(`pruning the inbox failed: ${(error as Error).message}`);
    }
  }
}
