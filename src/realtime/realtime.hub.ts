import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocket } from 'ws';
import { InjectConfig } from '../config/config.module.js';
import { Fanout } from '../database/fanout.js';
import type { AppConfig } from '../config/environment.js';
import { RevocationFeed } from '../security/identity.ports.js';
import type { Revocation } from '../security/revocation.js';
import { backoffDelay } from '../common/retry.js';
import { BackgroundJobs } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { SocketGrant } from './realtime.auth.js';
import { REALTIME_CHANNEL } from './events.js';
import { type Cursor, formatCursor, type InboxPage, NotificationsRepository, parseCursor } from './notifications.repository.js';
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

/** A user's sockets on this instance: their inbox is read once for all of them. */
interface Reader {
  userUid: string;
  connections: Set<Connection>;
  /** In a read, or waiting for an older transaction to end: a wake-up meanwhile only sets `again`. */
  busy: boolean;
  /** A wake-up came while busy: read again after. */
  again: boolean;
}

const before = (a: Cursor, b: Cursor) => a.xid < b.xid || (a.xid === b.xid && a.id < b.id);

// The most events a read takes per user, and over all its users (each user gets one at least, so this
// is also the most users a read takes); LIST_MAX_BYTES bounds its bytes.
const PAGE = 100;
const READ_ROWS = 1000;
// A failed read is tried again after a wait that doubles from the first to the last (jittered).
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
 * notification names the recipients, never the payload); it then reads the inboxes of all the users
 * woken in that turn, each from its sockets' cursor, in one statement, and sends each event in order.
 * An event not deliverable yet (an older transaction still runs) is read again once it is. After the
 * LISTEN connection was lost, every socket is read again, so nothing written meanwhile is missed; a
 * read that fails is tried again until it succeeds. Memory is bounded: a cap of sockets per user, and
 * a socket whose unsent data passes a bound is closed (it resumes from its last id).
 */
@Injectable()
export class RealtimeHub implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Realtime');
  private readonly readers = new Map<string, Reader>();
  private readonly pings: PingWheel<Connection>;
  private readonly horizon: TransactionHorizon;
  private stopping = false;
  /** Readers woken since the last read began, in the order they were: the next read takes them. */
  private readonly due = new Set<Reader>();
  /** The read running (one at a time), and whether the next is scheduled, and its timer after a failure. */
  private reading: Promise<void> | undefined;
  private readScheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Reads failed in a row: the wait before the next grows with them. */
  private failedReads = 0;
  /** With Redis: where the last poll of the inbox left off. */
  private polledTo: Cursor | undefined;

  constructor(
    private readonly inbox: NotificationsRepository,
    private readonly fanout: Fanout,
    private readonly revocations: RevocationFeed,
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
    this.jobs.schedule({ name: 'realtime-ping', everyMs: this.pings.tickMs, run: () => this.ping() });
    // The inbox is pruned hourly, and soon after a start; by one instance at a time.
    this.jobs.schedule({ name: 'inbox-prune', everyMs: 3600_000, firstRunInMs: 10_000, run: () => this.prune() });
    if (this.fanout.viaRedis) {
      this.polledTo = await this.inbox.now().catch(() => undefined);
      this.jobs.schedule({
        name: 'inbox-poll',
        pauseMs: () => (this.fanout.current ? POLL_MS_SUBSCRIBED : POLL_MS_UNSUBSCRIBED),
        run: () => this.poll(),
      });
    }
  }

  /**
   * Over Redis a wake-up can be lost (published after the commit, or while Redis is away): the inbox of
   * the connected users is polled, rarely while the subscription is up, often while it is not, so that
   * a lost wake-up delays an event at most a poll's interval and never loses it.
   */
  private async poll(): Promise<void> {
    if (this.stopping) return;
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
   * the events already read are sent, and the closing handshakes get a moment to finish. From here on
   * the periodic pings and polls do nothing; BackgroundJobs stops them.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retryTimer);
    this.horizon.release();
    await this.reading;
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
      reader = { userUid, connections: new Set(), busy: false, again: false };
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
    if (reader.connections.size === 0 && !reader.busy) this.forget(reader);
    this.pings.remove(connection, connection.pingSlot);
    clearTimeout(connection.expiry);
    this.metrics.countSocketClosed();
  }

  private *all(): Iterable<Connection> {
    for (const reader of this.readers.values()) yield* reader.connections;
  }

  /** The user's inbox is to be read for their sockets: in the next read (or after the one under way). */
  private wake(reader: Reader): void {
    if (this.stopping) return;
    if (reader.busy) {
      reader.again = true;
      return;
    }
    this.due.add(reader);
    this.scheduleRead();
  }

  /**
   * The next read, unless one runs (it schedules the next when it ends): in the next turn, so that it
   * takes every user woken in this one, or after a wait that grows with the reads failed in a row.
   */
  private scheduleRead(): void {
    if (this.reading || this.readScheduled || this.due.size === 0 || this.stopping) return;
    this.readScheduled = true;
    const start = () => {
      this.readScheduled = false;
      this.retryTimer = undefined;
      if (this.stopping) return;
      this.reading = this.read()
        // Not expected (a failed statement is handled in read): logged rather than left to end the process.
        .catch((error: unknown) => this.logger.error(`delivering events failed: ${(error as Error).stack}`))
        .finally(() => {
          this.reading = undefined;
          this.scheduleRead();
        });
    };
    if (this.failedReads === 0) setImmediate(() => void this.jobs.run('inbox-read', start));
    else this.retryTimer = this.jobs.after('inbox-read-retry', backoffDelay(this.failedReads, RETRY_FIRST_MS, RETRY_LAST_MS), start);
  }

  /**
   * One read: the inboxes of the users due (the first READ_ROWS of them, in the order they were woken),
   * each from the earliest cursor among its sockets (usually they share one), in one statement of at
   * most READ_ROWS events; each event goes to every socket of its user it is new to. A user whose page
   * was full, or who was woken again meanwhile, is due again; one whose next event an older
   * transaction holds back waits for it to end. A read that fails (the pool busy past its timeout, the
   * database away) leaves its users due, and the next read waits longer, until one succeeds or their
   * sockets are gone: no wake-up would come again for events already committed, so without it a quiet
   * player's socket would miss them until their next event.
   */
  private async read(): Promise<void> {
    const batch: Array<{ reader: Reader; open: Connection[] }> = [];
    for (const reader of this.due) {
      if (batch.length === READ_ROWS) break;
      this.due.delete(reader);
      const open = [...reader.connections].filter(
        (connection) => connection.cursor && connection.socket.readyState === connection.socket.OPEN,
      );
      // A socket still opening is read once its starting point is known (attach wakes it then).
      if (open.length === 0) continue;
      reader.busy = true;
      reader.again = false;
      batch.push({ reader, open });
    }
    if (batch.length === 0) return;
    let pages: InboxPage[];
    try {
      pages = await this.inbox.pagesAfter(
        batch.map(({ reader, open }) => ({ userUid: reader.userUid, after: earliest(open) })),
        Math.min(PAGE, Math.floor(READ_ROWS / batch.length)),
        this.config.listMaxBytes,
      );
    } catch (error) {
      this.failedReads += 1;
      this.metrics.countInboxReadFailure();
      this.logger.warn(
        `reading the inboxes of ${batch.length} users failed (${this.failedReads} in a row, tried again shortly): ${(error as Error).message}`,
      );
      for (const { reader } of batch) this.doneReading(reader, true);
      return;
    }
    this.failedReads = 0;
    this.metrics.countInboxRead(batch.length);
    batch.forEach(({ reader, open }, index) => {
      const page = pages[index];
      this.sendPage(open, page);
      if (page.heldBy === undefined || reader.again || this.stopping) return this.doneReading(reader, page.full);
      // Held back: read again once the older transaction has ended (or, if that cannot be told, now).
      const resume = () => this.doneReading(reader, true);
      void this.horizon.passed(page.heldBy).then(resume, resume);
    });
  }

  /** The reader's read is over: it is due again if `more` is to be read or it was woken meanwhile; without sockets, dropped. */
  private doneReading(reader: Reader, more: boolean): void {
    reader.busy = false;
    if (reader.connections.size === 0) return this.forget(reader);
    if (more || reader.again) this.wake(reader);
    reader.again = false;
  }

  /** Drops a reader whose last socket closed (a read it was due for is no longer needed). */
  private forget(reader: Reader): void {
    this.due.delete(reader);
    if (this.readers.get(reader.userUid) === reader) this.readers.delete(reader.userUid);
  }

  /** Sends each event of the page, once serialised, to every socket it is new to. */
  private sendPage(open: Connection[], page: InboxPage): void {
    for (const event of page.events) {
      const position = parseCursor(event.id)!;
      const frame = JSON.stringify(event);
      for (const connection of open) {
        if (!before(connection.cursor!, position)) continue;
        this.sendText(connection, frame);
        connection.cursor = position;
      }
      this.metrics.countDelivered(event.type, (Date.now() - Date.parse(event.at)) / 1000);
    }
  }

  private send(connection: Connection, frame: object): void {
    this.sendText(connection, JSON.stringify(frame));
  }

  private sendText(connection: Connection, text: string): void {
    const { socket } = connection;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > this.config.realtime.maxBufferedBytes) {
      this.metrics.countSlowConsumer();
      socket.close(CloseCode.SLOW_CONSUMER, 'slow consumer: resume with ?after=<the last id received>');
      return;
    }
    socket.send(text);
  }

  /** This tick's share of the sockets (PingWheel): each is pinged once per interval. */
  private ping(): void {
    // Shutting down: the sockets are closing with 1001, and a pong missed meanwhile must not cut one off instead.
    if (this.stopping) return;
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

/** The earliest cursor among the sockets: a read from it has what each of them still lacks. */
function earliest(open: Connection[]): Cursor {
  return open.map((connection) => connection.cursor!).reduce((first, cursor) => (before(cursor, first) ? cursor : first));
}
