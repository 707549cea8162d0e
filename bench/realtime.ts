import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { memoryOf, scrapeMetrics } from './processes.js';
import type { SeedData } from './seed.js';

/** What the realtime measurement found (docs/REALTIME.md; README "Performance"). */
export interface RealtimeReport {
  sockets: number;
  /** Growth of the service's resident memory per open idle socket, and of its V8 heap in use. */
  rssPerIdleSocketKb: number;
  heapPerIdleSocketKb: number;
  gifts: { sent: number; completed: number; other: number };
  /** Frames the clients should have received (each gift: two events to each of two users, on every socket of theirs) and did. */
  framesExpected: number;
  framesReceived: number;
  /** From the event's write in its transaction to its arrival at the client, in ms. */
  latencyMs: { p50: number; p99: number; max: number };
}

interface Options {
  url: string;
  pid: number;
  data: SeedData;
  tokenOf: (userUid: string) => string;
  socketsPerPlayer: number;
  giftsPerSecond: number;
  seconds: number;
  log: (message: string) => void;
}

/** The `p`th percentile of sorted values (the realtime and sockets measures). */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

async function heapUsedBytes(url: string): Promise<number> {
  return (await scrapeMetrics(url))('nodejs_heap_size_used_bytes');
}

/**
 * Commit-to-client latency under a stream of trades with many connected clients, and memory per idle
 * socket. The sockets are those of the seeded players (several each), the trades the gift pairs' gifts
 * at a steady rate, from this process (the load generator is for HTTP only).
 */
export async function measureRealtime(options: Options): Promise<RealtimeReport> {
  const { url, pid, data, log } = options;
  // The givers and receivers of the gift pairs: every user the stream of gifts sends events to.
  const receivers = data.giftPairs.map((pair) => data.players.find((player) => player.personaUids.includes(pair.receiverPersonaUid))!);
  const users = [...new Map([...data.giftPairs.map((pair) => pair.giver), ...receivers].map((user) => [user.uid, user])).values()];
  await sleep(2000);
  const rssBefore = memoryOf(pid).rss;
  const heapBefore = await heapUsedBytes(url);

  const latencies: number[] = [];
  const sockets: WebSocket[] = [];
  log(`opening ${users.length * options.socketsPerPlayer} sockets`);
  for (const user of users) {
    const opened = Array.from({ length: options.socketsPerPlayer }, async () => {
      const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/realtime`, {
        headers: { authorization: `jwt ${options.tokenOf(user.uid)}` },
      });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once('message', () => resolve());
        socket.once('error', reject);
      });
      socket.on('message', (raw: Buffer) => {
        const frame = JSON.parse(raw.toString()) as { type: string; at: string };
        if (frame.type !== 'realtime.ready') latencies.push(Date.now() - Date.parse(frame.at));
      });
    });
    await Promise.all(opened);
  }
  await sleep(3000);
  const idle = sockets.length;
  const rssPerIdleSocketKb = ((memoryOf(pid).rss - rssBefore) * 1024) / idle;
  const heapPerIdleSocketKb = ((await heapUsedBytes(url)) - heapBefore) / 1024 / idle;

  log(`${options.giftsPerSecond} gifts a second for ${options.seconds} s`);
  const gifts = { sent: 0, completed: 0, other: 0 };
  const pending: Array<Promise<void>> = [];
  const started = Date.now();
  for (let index = 0; Date.now() - started < options.seconds * 1000; index++) {
    const pair = data.giftPairs[index % data.giftPairs.length];
    gifts.sent += 1;
    pending.push(
      fetch(`${url}/inventories/transaction`, {
        method: 'POST',
        headers: { authorization: `jwt ${options.tokenOf(pair.giver.uid)}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          personaOneUid: pair.giverPersonaUid,
          personaTwoUid: pair.receiverPersonaUid,
          personaOneInventoryItems: [{ itemUid: data.goldCoinUid, quantity: 1 }],
        }),
      }).then(async (response) => {
        const body = (await response.json()) as { status?: string };
        if (response.ok && body.status === 'COMPLETED') gifts.completed += 1;
        else gifts.other += 1;
      }),
    );
    const due = started + ((index + 1) * 1000) / options.giftsPerSecond;
    if (due > Date.now()) await sleep(due - Date.now());
  }
  await Promise.all(pending);
  const framesExpected = gifts.completed * 4 * options.socketsPerPlayer;
  for (let waited = 0; latencies.length < framesExpected && waited < 10_000; waited += 100) await sleep(100);
  for (const socket of sockets) socket.close();

  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    sockets: idle,
    rssPerIdleSocketKb: Number(rssPerIdleSocketKb.toFixed(1)),
    heapPerIdleSocketKb: Number(heapPerIdleSocketKb.toFixed(1)),
    gifts,
    framesExpected,
    framesReceived: latencies.length,
    latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN },
  };
}
