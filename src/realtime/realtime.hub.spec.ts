import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocket } from 'ws';
import type { RevocationList } from '../auth/revocation-list.js';
import type { AppConfig } from '../config/environment.js';
import type { Fanout } from '../database/fanout.js';
import { BackgroundJobs } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { Cursor, InboxPage, NotificationsRepository } from './notifications.repository.js';
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
}

/** An inbox whose reads fail `failures` times, then hold one event for the user. */
class FlakyInbox {
  reads = 0;
  constructor(private failures: number) {}
  now(): Promise<Cursor> {
    return Promise.resolve({ xid: 10n, id: 0n });
  }
  after(_userUid: string, after: Cursor): Promise<InboxPage> {
    this.reads++;
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new Error('timeout exceeded when trying to connect'));
    }
    const events = after.xid < 11n ? [{ id: '11-1', type: 'storage.updated' as const, at: new Date().toISOString(), data: {} }] : [];
    return Promise.resolve({ events, full: false, heldBy: undefined });
  }
}

/** An inbox whose one event (xid 12) is held back by an older transaction until `xmin` passes 12. */
class HeldInbox {
  reads = 0;
  xmins = 0;
  ended = false;
  now(): Promise<Cursor> {
    return Promise.resolve({ xid: 10n, id: 0n });
  }
  xmin(): Promise<bigint> {
    this.xmins++;
    return Promise.resolve(this.ended ? 13n : 11n);
  }
  after(_userUid: string, after: Cursor): Promise<InboxPage> {
    this.reads++;
    if (after.xid >= 12n) return Promise.resolve({ events: [], full: false, heldBy: undefined });
    if (!this.ended) return Promise.resolve({ events: [], full: false, heldBy: 12n });
    return Promise.resolve({
      events: [{ id: '12-1', type: 'storage.updated' as const, at: new Date().toISOString(), data: {} }],
      full: false,
      heldBy: undefined,
    });
  }
}

function hubWith(inbox: FlakyInbox | HeldInbox, metrics: MetricsService): RealtimeHub {
  const fanout = { on: () => undefined, onRestored: () => undefined } as unknown as Fanout;
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
  return hub;
}

const grant = {
  userUid: '7b0c5a3e-3f5e-4b7a-9d3c-2f1e0d9c8b7a',
  roles: ['player'],
  sessionUid: '1d2c3b4a-5f6e-4a7b-8c9d-0e1f2a3b4c5d',
  tokenIssuedAt: new Date(),
  tokenExpiresAt: new Date(Date.now() + 3600_000),
  after: undefined,
};

async function failures(metrics: MetricsService): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('realtime_inbox_read_failures_total')!.get();
  return metric.values[0]?.value ?? 0;
}

describe('RealtimeHub, when reading an inbox fails', () => {
  it('reads it again, waiting longer each time, and sends what was there without another wake-up', async () => {
    const inbox = new FlakyInbox(2);
    const metrics = new MetricsService();
    const hub = hubWith(inbox, metrics);
    const socket = new FakeSocket();
    await hub.attach(socket as unknown as WebSocket, grant);
    expect(socket.frames.map((frame) => frame.type)).toEqual(['realtime.ready']);
    // Tries after 100 ms and then 200 ms more: the event is there by the third read.
    for (let waited = 0; socket.frames.length < 2 && waited < 2000; waited += 20) await sleep(20);
    expect(socket.frames.map((frame) => frame.id)).toEqual(['10-0', '11-1']);
    expect(inbox.reads).toBe(3);
    expect(await failures(metrics)).toBe(2);
    socket.close();
  });

  it('stops trying once the sockets are gone', async () => {
    const inbox = new FlakyInbox(Number.POSITIVE_INFINITY);
    const hub = hubWith(inbox, new MetricsService());
    const socket = new FakeSocket();
    await hub.attach(socket as unknown as WebSocket, grant);
    await sleep(150);
    const reads = inbox.reads;
    expect(reads).toBeGreaterThanOrEqual(2);
    socket.close();
    await sleep(700);
    expect(inbox.reads).toBe(reads);
    expect(hub.size).toBe(0);
    expect(hub.connectedUsers()).toEqual([]);
  });
});

describe('RealtimeHub, when an older transaction holds an event back', () => {
  it('reads the inbox again once that transaction has ended, not before, and sends the event', async () => {
    const inbox = new HeldInbox();
    const hub = hubWith(inbox, new MetricsService());
    const socket = new FakeSocket();
    await hub.attach(socket as unknown as WebSocket, grant);
    for (let waited = 0; inbox.xmins < 3 && waited < 2000; waited += 5) await sleep(5);
    // Still running: the hub asked PostgreSQL's xmin, and did not read the inbox again meanwhile.
    expect(inbox.reads).toBe(1);
    expect(socket.frames.map((frame) => frame.id)).toEqual(['10-0']);
    inbox.ended = true;
    for (let waited = 0; socket.frames.length < 2 && waited < 2000; waited += 5) await sleep(5);
    expect(socket.frames.map((frame) => frame.id)).toEqual(['10-0', '12-1']);
    expect(inbox.reads).toBe(2);
    socket.close();
  });
});
