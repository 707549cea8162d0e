import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocket } from 'ws';
import { InjectConfig } from '../config/config.module.js';
import { Fanout } from '../database/fanout.js';
import type { AppConfig } from '../config/environment.js';
import { RevocationList } from '../auth/revocation-list.js';
import type { Revocation } from '../auth/revocation.js';
import { BackgroundJobs, type RepeatingJob } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { SocketGrant } from './realtime.auth.js';
import { REALTIME_CHANNEL } from './events.js';
import { type Cursor, formatCursor, NotificationsRepository } from './notifications.repository.js';
import { PingWheel } from './ping-wheel.js';
import { TransactionHorizon } from './transaction-horizon.js';

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
  /** The player session of the token it was opened with, and when that token was issued. */
  sessionUid: string;
  tokenIssuedAt: Date;
  /** Undefined until the socket's starting point is known (it comes from the database). */
  cursor: Cursor | undefined;
  /** Whether the socket answered the last ping, and its tick on the ping wheel. */
  alive: boolean;
  pingSlot: number;
  expiry: NodeJS.Timeout;
}

/** A user's sockets on this instance: their inbox is read once for all of them, a read at a time. */
interface Reader {
  userUid: string;
  connections: Set<Connection>;
  reading: boolean;
  /** A wake-up came during the read: read again after it. */
  again: boolean;
  /** After a failed read: the wait before the next try, and its timer. */
  retryMs: number;
  retry: NodeJS.Timeout | undefined;
}

const before = (a: Cursor, b: Cursor) => a.xid < b.xid || (a.xid === b.xid && a.id < b.id);

const PAGE = 100;
// A failed inbox read is tried again after a wait that doubles from the first to the last.
const RETRY_FIRST_MS = 100;
const RETRY_LAST_MS = 5000;
// How often the inbox is polled over Redis (see schedulePoll).
const POLL_MS_SUBSCRIBED = 1000;
const POLL_MS_UNSUBSCRIBED = 250;
// How often, while an inbox read is held back by an older transaction, the end of it is looked for.
const HORIZON_POLL_MS = 5;
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
export class RealtimeHub implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Realtime');
  private readonly readers = new Map<string, Reader>();
  private readonly pings: PingWheel<Connection>;
  private readonly horizon: TransactionHorizon;
  private stopping = false;
  private readonly reads = new Set<Promise<void>>();
  private pingTimer: NodeJS.Timeout | undefined;
  private janitorTimer: NodeJS.Timeout | undefined;
  private poller: RepeatingJob | undefined;
  /** With Redis: where the last poll of the inbox left off. */
  private polledTo: Cursor | undefined;

  constructor(
    private readonly inbox: NotificationsRepository,
    private readonly fanout: Fanout,
    private readonly revocations: RevocationList,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.pings = new PingWheel(config.realtime.pingIntervalMs);
    this.horizon = new TransactionHorizon(() => inbox.xmin(), HORIZON_POLL_MS, jobs);
  }

  onModuleInit(): void {
    this.fanout.on(REALTIME_CHANNEL, (payload) => this.notified(payload));
    this.revocations.onRevoked((revocation) => this.revoked(revocation));
    // Whatever was written while nobody listened.
    this.fanout.onRestored(() => {
      for (const reader of this.readers.values()) this.wake(reader);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.fanout.listen();
    this.pingTimer = this.jobs.every('realtime-ping', this.pings.tickMs, () => this.ping());
    // The inbox is pruned hourly, and soon after a start; by one instance at a time.
    this.janitorTimer = this.jobs.every('inbox-prune', 3600_000, () => this.prune());
    this.jobs.after('inbox-prune', 10_000, () => this.prune());
    if (this.fanout.viaRedis) {
      this.polledTo = await this.inbox.now().catch(() => undefined);
      this.poller = this.jobs.repeat(
        'inbox-poll',
        () => (this.fanout.current ? POLL_MS_SUBSCRIBED : POLL_MS_UNSUBSCRIBED),
        () => this.poll(),
      );
    }
  }

  /**
   * Over Redis a wake-up can be lost (published after the commit, or while Redis is away): the inbox of
   * the connected users is polled, rarely while the subscription is up, often while it is not, so that
   * a lost wake-up delays an event at most a poll's interval and never loses it.
   */
  private async poll(): Promise<void> {
    if (!this.fanout.current) this.metrics.countRedisFallback('realtime');
    const users = this.connectedUsers();
    const { users: woken, next } = await this.inbox.usersWithEventsAfter(users, this.polledTo ?? (await this.inbox.now()));
    this.polledTo = next;
    for (const userUid of woken) {
      const reader = this.readers.get(userUid);
      if (reader) this.wake(reader);
    }
  }

  /**
   * Before Nest closes the WebSocket server (which would cut sockets off): sockets close with 1001 once
   * the events already read are sent, and the closing handshakes get a moment to finish.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pingTimer);
    clearInterval(this.janitorTimer);
    await this.poller?.stop();
    this.horizon.release();
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

  /** A socket opened by `userUid`: it is sent every event after `after` (or from now on), then live ones. */
  async attach(socket: WebSocket, grant: SocketGrant): Promise<void> {
    const { userUid, sessionUid, tokenIssuedAt, tokenExpiresAt, after } = grant;
    let reader = this.readers.get(userUid);
    if (!reader) {
      reader = { userUid, connections: new Set(), reading: false, again: false, retryMs: RETRY_FIRST_MS, retry: undefined };
      this.readers.set(userUid, reader);
    }
    if (reader.connections.size >= this.config.realtime.maxSocketsPerUser) {
      socket.close(CloseCode.TOO_MANY_SOCKETS, `too many sockets for this user (at most ${this.config.realtime.maxSocketsPerUser})`);
      return;
    }
    // The slot is taken at once, before the starting point comes from the database: sockets of one
    // user opening together count against the cap.
    const expiresIn = Math.max(0, tokenExpiresAt.getTime() - Date.now());
    const connection: Connection = {
      socket,
      sessionUid,
      tokenIssuedAt,
      cursor: undefined,
      alive: true,
      pingSlot: 0,
      expiry: this.jobs.after('realtime-token-expiry', expiresIn, () =>
        socket.close(CloseCode.TOKEN_EXPIRED, 'token expired: sign in again and resume'),
      ),
    };
    reader.connections.add(connection);
    connection.pingSlot = this.pings.add(connection);
    this.metrics.countSocketOpened();
    socket.on('pong', () => (connection.alive = true));
    socket.once('close', () => this.detach(reader, connection));
    let start: Cursor;
    try {
      start = after ?? (await this.inbox.now());
    } catch (error) {
      socket.close(1011, 'the inbox is unavailable: try again shortly');
      throw error;
    }
    // The first frame says where the socket starts, so that a client can resume without a gap even
    // before its first event.
    this.send(connection, { id: formatCursor(start), type: 'realtime.ready', at: new Date().toISOString(), data: { userUid } });
    connection.cursor = start;
    this.wake(reader);
  }

  /** Closes every socket of the user. */
  closeUser(userUid: string, code: number, reason: string): void {
    for (const connection of this.readers.get(userUid)?.connections ?? []) connection.socket.close(code, reason);
  }

  /** Closes the sockets whose tokens a revocation withdrew (sign-out, revocation, ban). */
  private revoked(revocation: Revocation): void {
    const sessions = new Set(revocation.sessionUids);
    const notBefore = revocation.notBefore === undefined ? undefined : Math.floor(revocation.notBefore / 1000) * 1000;
    for (const connection of this.readers.get(revocation.userUid)?.connections ?? []) {
      if (sessions.has(connection.sessionUid) || (notBefore !== undefined && connection.tokenIssuedAt.getTime() < notBefore)) {
        connection.socket.close(CloseCode.REVOKED, `session revoked (${revocation.reason}): sign in again`);
      }
    }
  }

  /** The sockets of this instance. */
  get size(): number {
    let count = 0;
    for (const reader of this.readers.values()) count += reader.connections.size;
    return count;
  }

  /** The users with at least one open socket on this instance (they are present in their sessions). */
  connectedUsers(): string[] {
    const users: string[] = [];
    for (const reader of this.readers.values()) if (reader.connections.size > 0) users.push(reader.userUid);
    return users;
  }

  private detach(reader: Reader, connection: Connection): void {
    if (!reader.connections.delete(connection)) return;
    if (reader.connections.size === 0 && !reader.reading) this.forget(reader);
    this.pings.remove(connection, connection.pingSlot);
    clearTimeout(connection.expiry);
    this.metrics.countSocketClosed();
  }

  private *all(): Iterable<Connection> {
    for (const reader of this.readers.values()) yield* reader.connections;
  }

  /**
   * Reads the user's inbox for all their sockets and sends what is there; a read at a time per user.
   * A read that fails (the pool busy past its timeout, the database away) is tried again, waiting
   * longer each time, until one succeeds or the sockets are gone: no wake-up would come for events
   * already committed, so without it a quiet player's socket would miss them until its next event.
   */
  private wake(reader: Reader): void {
    if (reader.reading) {
      reader.again = true;
      return;
    }
    clearTimeout(reader.retry);
    reader.retry = undefined;
    reader.reading = true;
    const read = this.deliver(reader)
      .then(
        () => {
          reader.retryMs = RETRY_FIRST_MS;
        },
        (error: unknown) => {
          this.logger.warn(`reading the inbox of ${reader.userUid} failed (next try in ${reader.retryMs} ms): ${(error as Error).message}`);
          this.metrics.countInboxReadFailure();
          this.retryLater(reader);
        },
      )
      .finally(() => {
        reader.reading = false;
        this.reads.delete(read);
        if (reader.connections.size === 0) this.forget(reader);
      });
    this.reads.add(read);
  }

  private retryLater(reader: Reader): void {
    if (this.stopping || reader.connections.size === 0) return;
    const wait = reader.retryMs;
    reader.retryMs = Math.min(wait * 2, RETRY_LAST_MS);
    reader.retry = this.jobs.after('inbox-read-retry', wait, () => {
      reader.retry = undefined;
      if (!this.stopping && this.readers.get(reader.userUid) === reader) this.wake(reader);
    });
  }

  /** Drops a reader whose last socket closed (a retry it waited for is no longer needed). */
  private forget(reader: Reader): void {
    clearTimeout(reader.retry);
    reader.retry = undefined;
    if (this.readers.get(reader.userUid) === reader) this.readers.delete(reader.userUid);
  }

  /**
   * Reads from the earliest cursor among the user's sockets (usually they share one) and sends each
   * event to every socket it is new to, until nothing is left; an event held back by an older
   * transaction still running is read again once that one has ended.
   */
  private async deliver(reader: Reader): Promise<void> {
    for (;;) {
      reader.again = false;
      const open = [...reader.connections].filter(
        (connection) => connection.cursor && connection.socket.readyState === connection.socket.OPEN,
      );
      if (open.length === 0) return;
      const from = open
        .map((connection) => connection.cursor!)
        .reduce((earliest, cursor) => (before(cursor, earliest) ? cursor : earliest));
      const page = await this.inbox.after(reader.userUid, from, PAGE, this.config.listMaxBytes);
      for (const event of page.events) {
        const [xid, id] = event.id.split('-');
        const position = { xid: BigInt(xid), id: BigInt(id) };
        const frame = JSON.stringify(event);
        for (const connection of open) {
          if (!before(connection.cursor!, position)) continue;
          this.sendText(connection, frame);
          connection.cursor = position;
        }
        this.metrics.countDelivered(event.type, (Date.now() - Date.parse(event.at)) / 1000);
      }
      if (page.full || reader.again) continue;
      if (page.heldBy === undefined || this.stopping) return;
      await this.horizon.passed(page.heldBy);
    }
  }

  private send(connection: Connection, frame: object): void {
    this.sendText(connection, JSON.stringify(frame));
  }

  private sendText(connection: Connection, text: string): void {
    const { socket } = connection;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > this.config.realtime.maxBufferedBytes) {
      socket.close(CloseCode.SLOW_CONSUMER, 'slow consumer: resume with ?after=<the last id received>');
      return;
    }
    socket.send(text);
  }

  /** This tick's share of the sockets (PingWheel): each is pinged once per interval. */
  private ping(): void {
    for (const connection of this.pings.due()) {
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }

  private notified(payload: string | undefined): void {
    if (payload === '*') {
      for (const reader of this.readers.values()) this.wake(reader);
      return;
    }
    for (const userUid of payload?.split(',') ?? []) {
      const reader = this.readers.get(userUid);
      if (reader) this.wake(reader);
    }
  }

  private async prune(): Promise<void> {
    const pruned = await this.inbox.prune(JANITOR_LOCK, this.config.realtime.retentionSeconds);
    if (pruned) this.logger.log(`pruned ${pruned} events older than the retention`);
  }
}
