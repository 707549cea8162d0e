import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocket } from 'ws';
import type { RevocationList } from '../auth/sign-in-sessions/revocation-list.js';
import type { AppConfig } from '../config/environment.js';
import type { Fanout } from '../database/fanout.js';
import { BackgroundJobs } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { type Cursor, type InboxPage, type NotificationsRepository } from './notifications.repository.js';
import { RealtimeHub } from './realtime.hub.js';

/** What the hub uses of a ws socket: the frames it was sent, and a close that fires the 'close' event. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly frames: Array<{ type: string; id: string }> = [];
  send(text: string): void {
    this.frames.push(JSON.parse(text) as { type: string; id: string });
  }
  close(): void {
    this.readyState = 3;
    this.emit('close');
  }
  ping(): void {}
  terminate(): void {
    this.close();
  }
  get events(): string[] {
    return this.frames.filter((frame) => frame.type !== 'realtime.ready').map((frame) => frame.id);
  }
}

const after = (a: Cursor, b: Cursor) => a.xid > b.xid || (a.xid === b.xid && a.id > b.id);

/**
 * The inbox in memory, as NotificationsRepository answers it: each user's events after their cursor,
 * at most `limit` each, those of a transaction at or past `runningFrom` held back. Its reads can be
 * made to fail, and to answer only the first `budgetUsers` users (the others left out by the budget).
 */
class MemoryInbox {
  readonly events = new Map<string, Cursor[]>();
  readonly reads: Array<{ users: string[]; limit: number; from: string[] }> = [];
  failures = 0;
  budgetUsers = Number.POSITIVE_INFINITY;
  /** The oldest transaction still running: events of it and later ones are not deliverable yet. */
  runningFrom: bigint | undefined;
  xmins = 0;

  add(userUid: string, ...ids: string[]): void {
    const list = this.events.get(userUid) ?? [];
    for (const id of ids) {
      const [xid, row] = id.split('-').map(BigInt);
      list.push({ xid, id: row });
    }
    this.events.set(userUid, list);
  }
  now(): Promise<Cursor> {
    return Promise.resolve({ xid: 10n, id: 0n });
  }
  xmin(): Promise<bigint> {
    this.xmins++;
    return Promise.resolve(this.runningFrom ?? 1_000_000n);
  }
  pagesAfter(reads: ReadonlyArray<{ userUid: string; after: Cursor }>, limit: number): Promise<InboxPage[]> {
    this.reads.push({ users: reads.map((read) => read.userUid), limit, from: reads.map((read) => `${read.after.xid}-${read.after.id}`) });
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new Error('timeout exceeded when trying to connect'));
    }
    return Promise.resolve(
      reads.map(({ userUid, after: cursor }, index): InboxPage => {
        if (index >= this.budgetUsers) return { events: [], full: true, heldBy: undefined };
        const rows = (this.events.get(userUid) ?? []).filter((event) => after(event, cursor)).slice(0, limit);
        const ready = rows.filter((row) => this.runningFrom === undefined || row.xid < this.runningFrom);
        return {
          events: ready.map((row) => ({
            id: `${row.xid}-${row.id}`,
            type: 'storage.updated' as const,
            at: new Date().toISOString(),
            data: {},
          })),
          full: ready.length === rows.length && ready.length === limit,
          heldBy: rows.find((row) => !ready.includes(row))?.xid,
        };
      }),
    );
  }
}

/** A hub over the inbox, and the wake-up a NOTIFY naming users would give it. */
function hubWith(inbox: MemoryInbox, metrics = new MetricsService()): { hub: RealtimeHub; notify: (users: string[]) => void } {
  let notified: (payload: string) => void = () => undefined;
  const fanout = {
    on: (_channel: string, listener: (payload: string) => void) => (notified = listener),
    onRestored: () => undefined,
  } as unknown as Fanout;
  const revocations = { onRevoked: () => undefined } as unknown as RevocationList;
  const config = {
    listMaxBytes: 1_000_000,
    realtime: { maxSocketsPerUser: 5, pingIntervalMs: 30_000, maxBufferedBytes: 1_000_000, retentionSeconds: 3600, inboxMaxEvents: 1000 },
  } as unknown as AppConfig;
  const hub = new RealtimeHub(
    inbox as unknown as NotificationsRepository,
    fanout,
    revocations,
    metrics,
    new BackgroundJobs(metrics),
    config,
  );
  hub.onModuleInit();
  return { hub, notify: (users) => notified(users.join(',')) };
}

const userUid = (index: number) => `7b0c5a3e-3f5e-4b7a-9d3c-${String(index).padStart(12, '0')}`;

/** Opens a socket of user `index` on the hub (from now on: the inbox's `now` is 10-0). */
async function open(hub: RealtimeHub, index = 0): Promise<FakeSocket> {
  const socket = new FakeSocket();
  await hub.attach(socket as unknown as WebSocket, {
    userUid: userUid(index),
    roles: ['player'],
    sessionUid: '1d2c3b4a-5f6e-4a7b-8c9d-0e1f2a3b4c5d',
    tokenIssuedAt: new Date(),
    tokenExpiresAt: new Date(Date.now() + 3600_000),
    after: undefined,
  });
  return socket;
}

/** Waits until the hub has read the inbox of each of the first `count` users once (what opening their sockets asks). */
async function opened(inbox: MemoryInbox, count: number): Promise<void> {
  await until(() => new Set(inbox.reads.flatMap((read) => read.users)).size === count);
}

/** Waits (a few seconds at most) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5000; waited += 5) await sleep(5);
}

async function counted(metrics: MetricsService, name: string): Promise<{ value: number; sum?: number }> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  const values = metric.values.filter((value) => !('metricName' in value) || value.metricName === `${name}_count`);
  const sum = metric.values.find((value) => 'metricName' in value && value.metricName === `${name}_sum`)?.value;
  return { value: values[0]?.value ?? 0, sum };
}

describe('RealtimeHub, reading the inboxes', () => {
  it('reads the inboxes of all the users woken in one turn with one statement, each from its own cursor', async () => {
    const inbox = new MemoryInbox();
    const metrics = new MetricsService();
    const { hub, notify } = hubWith(inbox, metrics);
    const sockets = [await open(hub, 0), await open(hub, 1), await open(hub, 2)];
    await opened(inbox, 3);
    const readsBefore = inbox.reads.length;
    inbox.add(userUid(0), '11-1', '12-4');
    inbox.add(userUid(2), '11-2', '11-3', '12-5');

    notify([userUid(0), userUid(1), userUid(2)]);
    await until(() => sockets[2].events.length === 3);

    expect(inbox.reads.slice(readsBefore)).toEqual([
      { users: [userUid(0), userUid(1), userUid(2)], limit: 100, from: ['10-0', '10-0', '10-0'] },
    ]);
    expect(sockets.map((socket) => socket.events)).toEqual([['11-1', '12-4'], [], ['11-2', '11-3', '12-5']]);
    // Each user's next read starts after what they got.
    inbox.add(userUid(0), '13-6');
    notify([userUid(0), userUid(2)]);
    await until(() => sockets[0].events.length === 3);
    expect(inbox.reads.at(-1)).toEqual({ users: [userUid(0), userUid(2)], limit: 100, from: ['12-4', '12-5'] });
    expect(sockets[0].events).toEqual(['11-1', '12-4', '13-6']);
    expect(await counted(metrics, 'realtime_inbox_read_users')).toMatchObject({ value: inbox.reads.length });
    sockets.forEach((socket) => socket.close());
  });

  it('shares a read among its users (at most 100 events each, 1,000 in all) and reads on after a full page', async () => {
    const inbox = new MemoryInbox();
    const { hub, notify } = hubWith(inbox);
    const sockets: FakeSocket[] = [];
    for (let index = 0; index < 40; index++) sockets.push(await open(hub, index));
    await opened(inbox, 40);
    const readsBefore = inbox.reads.length;
    // The first user has 250 events waiting; every other one, one.
    inbox.add(userUid(0), ...Array.from({ length: 250 }, (_, index) => `${11 + index}-${index}`));
    for (let index = 1; index < 40; index++) inbox.add(userUid(index), `11-${1000 + index}`);

    notify(sockets.map((_, index) => userUid(index)));
    await until(() => sockets[0].events.length === 250);

    const reads = inbox.reads.slice(readsBefore);
    // 40 users share the first read (25 events each); then the first user alone reads on, 100 at a time.
    expect(reads.map((read) => [read.users.length, read.limit])).toEqual([
      [40, 25],
      [1, 100],
      [1, 100],
      [1, 100],
    ]);
    expect(sockets[0].events).toEqual(Array.from({ length: 250 }, (_, index) => `${11 + index}-${index}`));
    expect(sockets.slice(1).every((socket, index) => socket.events.join() === `11-${1001 + index}`)).toBe(true);
    sockets.forEach((socket) => socket.close());
  });

  it('reads again, from the same cursor, a user whom the read left out for its byte budget', async () => {
    const inbox = new MemoryInbox();
    const { hub, notify } = hubWith(inbox);
    const sockets = [await open(hub, 0), await open(hub, 1)];
    await opened(inbox, 2);
    const readsBefore = inbox.reads.length;
    inbox.add(userUid(0), '11-1');
    inbox.add(userUid(1), '11-2');
    inbox.budgetUsers = 1;

    notify([userUid(0), userUid(1)]);
    await until(() => sockets[1].events.length === 1);

    expect(inbox.reads.slice(readsBefore).map((read) => [read.users, read.from])).toEqual([
      [
        [userUid(0), userUid(1)],
        ['10-0', '10-0'],
      ],
      [[userUid(1)], ['10-0']],
    ]);
    expect(sockets.map((socket) => socket.events)).toEqual([['11-1'], ['11-2']]);
    sockets.forEach((socket) => socket.close());
  });
});

describe('RealtimeHub, when reading the inboxes fails', () => {
  it('reads them again, with one statement, waiting longer each time, and sends what was there without another wake-up', async () => {
    const inbox = new MemoryInbox();
    const metrics = new MetricsService();
    const { hub, notify } = hubWith(inbox, metrics);
    const sockets = [await open(hub, 0), await open(hub, 1)];
    await opened(inbox, 2);
    const readsBefore = inbox.reads.length;
    inbox.add(userUid(0), '11-1');
    inbox.add(userUid(1), '11-2');
    inbox.failures = 2;

    notify([userUid(0), userUid(1)]);
    // Tries after 50 to 100 ms, then after 100 to 200 ms more: the events are there by the third read.
    await until(() => sockets.every((socket) => socket.events.length === 1));

    expect(sockets.map((socket) => socket.events)).toEqual([['11-1'], ['11-2']]);
    expect(inbox.reads.slice(readsBefore).map((read) => read.users)).toEqual(Array(3).fill([userUid(0), userUid(1)]));
    expect(await counted(metrics, 'realtime_inbox_read_failures_total')).toMatchObject({ value: 2 });
    sockets.forEach((socket) => socket.close());
  });

  it('stops trying once the sockets are gone', async () => {
    const inbox = new MemoryInbox();
    inbox.failures = Number.POSITIVE_INFINITY;
    const { hub } = hubWith(inbox);
    const socket = await open(hub);
    await until(() => inbox.reads.length >= 2);
    socket.close();
    const reads = inbox.reads.length;
    await sleep(700);
    expect(inbox.reads.length).toBe(reads);
    expect(hub.size).toBe(0);
    expect(hub.connectedUsers()).toEqual([]);
  });
});

describe('RealtimeHub, when an older transaction holds an event back', () => {
  it('reads the inbox again once that transaction has ended, not before, and sends the event', async () => {
    const inbox = new MemoryInbox();
    const { hub, notify } = hubWith(inbox);
    const socket = await open(hub);
    await opened(inbox, 1);
    inbox.add(userUid(0), '12-1');
    inbox.runningFrom = 12n;
    const readsBefore = inbox.reads.length;

    notify([userUid(0)]);
    await until(() => inbox.xmins >= 3);
    // Still running: the hub asked PostgreSQL's xmin, and did not read the inbox again meanwhile.
    expect(inbox.reads.length).toBe(readsBefore + 1);
    expect(socket.events).toEqual([]);
    inbox.runningFrom = 13n;
    await until(() => socket.events.length === 1);
    expect(socket.events).toEqual(['12-1']);
    expect(inbox.reads.length).toBe(readsBefore + 2);
    socket.close();
  });
});
