/**
 * Requests at a fixed arrival rate (an open loop), for bench/load.ts: request i is due at
 * start + i / rate whatever the answers before it did, and its latency runs from that due time to the
 * end of its answer, so a server that stalls is charged for every request that waited behind the stall
 * (no coordinated omission).
 *
 * Why not autocannon's `overallRate`: it paces each connection and measures from the actual send, and a
 * busy connection delays its next request, so a stall hides itself. Why node:http rather than undici's
 * Pool: undici is not a dependency (Node's fetch bundles it without exporting the Pool), and an Agent
 * that opens another keep-alive connection whenever all are busy is exactly "never wait for a
 * connection". The agent of a server outlives a round, so the warm-up at a rate opens the connections
 * the measured rounds then reuse, as long-lived clients' connections are (a round that opened its own
 * began with a burst of handshakes no steady arrival rate has). Arrivals
 * are evenly spaced (as wrk2 does) rather than Poisson, so that the service's and the baseline's rounds
 * see the same sequence. Latencies are kept exactly and sorted (a round holds tens of thousands).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Request } from 'autocannon';

export interface OpenLoopJob {
  url: string;
  /** Requests a second. */
  rate: number;
  /** Seconds of scheduling; answers still due after it are awaited. */
  duration: number;
  /**
   * Then this rate for this long, without a pause (the answers of the first rate are not awaited
   * first): what arrives once an overload ends. The result then has figures for each second.
   */
  then?: { rate: number; duration: number };
  /** Sent in turn, request i being requests[i mod length]. */
  requests: Request[];
}

export interface OpenLoopResult {
  /** Requests due in the window (rate × duration) and sent. */
  sent: number;
  /** Answers of any status, over the scheduling window: the achieved rate. */
  answeredPerSecond: number;
  /** Milliseconds from each 2xx answer's due time, sorted. */
  latenciesMs: number[];
  /** How late the driver itself sent (ms, p99 and max): above a millisecond or two, the load process was starved. */
  sendLagMs: { p99: number; max: number };
  /** Connection errors and timeouts. */
  errors: number;
  statusCounts: Record<string, number>;
  /** Connections the round used (kept from earlier rounds to the server, or opened when every one was busy). */
  connections: number;
  /** Seconds into the window at which the first request due that took over SLOW_MS was due (undefined if none): a stall at 0 came with the round. */
  firstSlowAtSeconds?: number;
  /** With `then`: each second of the whole window (both rates), by the requests due in it. */
  perSecond?: SecondFigures[];
}

/**
 * One second of the window: of the requests due in it, the p99 of the 2xx answers (ms, NaN if none),
 * how many were answered 2xx and how many failed (errors and other statuses); and how many answers of
 * any request ended in it (above the rate while a backlog drains).
 */
export interface SecondFigures {
  p99: number;
  ok: number;
  failed: number;
  done: number;
}

/** What counts as slow for firstSlowAtSeconds: the knee's bound. */
export const SLOW_MS = 50;

/** An answer not back after this long counts as an error (the request is abandoned). */
const TIMEOUT_MS = 10_000;
/** A bound on connections, so that a server that stops answering cannot make the driver open thousands; beyond it requests queue, and the queue counts in their latency. */
const MAX_CONNECTIONS = 1024;

export function percentileOf(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

/** A server's agent unused this long is closed and opened afresh: well within the servers' keep-alive timeouts (Fastify's is 72 s). */
const AGENT_IDLE_MS = 30_000;
const agents = new Map<string, { agent: http.Agent; lastUsed: number }>();

/** The keep-alive agent of a server (its origin), kept between rounds; the caller notes when it last used it. */
function agentFor(origin: string): { agent: http.Agent; lastUsed: number } {
  const now = performance.now();
  let entry = agents.get(origin);
  if (entry && now - entry.lastUsed > AGENT_IDLE_MS) {
    entry.agent.destroy();
    entry = undefined;
  }
  entry ??= { agent: new http.Agent({ keepAlive: true, maxSockets: MAX_CONNECTIONS, maxFreeSockets: MAX_CONNECTIONS }), lastUsed: now };
  agents.set(origin, entry);
  return entry;
}

export async function runOpenLoop(job: OpenLoopJob): Promise<OpenLoopResult> {
  const target = new URL(job.url);
  const kept = agentFor(target.origin);
  const { agent } = kept;
  const used = new WeakSet<object>();
  let connections = 0;
  const first = Math.max(1, Math.round(job.rate * job.duration));
  const total = first + (job.then ? Math.max(1, Math.round(job.then.rate * job.then.duration)) : 0);
  /** When request i is due, in ms after the start: evenly spaced at the first rate, then at the second. */
  const dueOffset = (index: number) =>
    index < first ? (index * 1000) / job.rate : job.duration * 1000 + ((index - first) * 1000) / job.then!.rate;
  const bySecond: Array<{ latencies: number[]; failed: number; done: number }> = [];
  const secondAt = (time: number) => (bySecond[Math.max(0, Math.floor((time - start) / 1000))] ??= { latencies: [], failed: 0, done: 0 });
  /** With `then`: a request due at `dueAt` ended now, answered 2xx in `latency` ms or not (undefined). */
  const noteSecond = (dueAt: number, latency?: number) => {
    if (!job.then) return;
    if (latency === undefined) secondAt(dueAt).failed++;
    else secondAt(dueAt).latencies.push(latency);
    secondAt(performance.now()).done++;
  };
  const latencies: number[] = [];
  const lags: number[] = [];
  const statusCounts: Record<string, number> = {};
  let errors = 0;
  let answered = 0;
  let firstSlowDue = Infinity;
  const pending = new Set<Promise<void>>();

  const send = (index: number, dueAt: number) => {
    const request = job.requests[index % job.requests.length];
    lags.push(performance.now() - dueAt);
    const done = new Promise<void>((resolve) => {
      const outgoing = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: request.method ?? 'GET',
          path: request.path ?? '/',
          headers: request.headers,
          agent,
          timeout: TIMEOUT_MS,
        },
        (response) => {
          response.resume();
          response.once('end', () => {
            answered++;
            const status = response.statusCode ?? 0;
            statusCounts[status] = (statusCounts[status] ?? 0) + 1;
            const latency = performance.now() - dueAt;
            if (status >= 200 && status < 300) {
              latencies.push(latency);
              noteSecond(dueAt, latency);
            } else noteSecond(dueAt);
            if (latency > SLOW_MS) firstSlowDue = Math.min(firstSlowDue, dueAt);
            resolve();
          });
          response.once('error', () => {
            errors++;
            noteSecond(dueAt);
            resolve();
          });
        },
      );
      outgoing.once('socket', (socket) => {
        if (!used.has(socket)) {
          used.add(socket);
          connections++;
        }
      });
      outgoing.once('timeout', () => outgoing.destroy(new Error('timeout')));
      outgoing.once('error', () => {
        errors++;
        noteSecond(dueAt);
        resolve();
      });
      outgoing.end(request.body);
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };

  const start = performance.now() + 5;
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + dueOffset(next) <= now) {
        send(next, start + dueOffset(next));
        next++;
      }
      if (next >= total) return resolve();
      setTimeout(tick, Math.max(0, start + dueOffset(next) - performance.now()));
    };
    setTimeout(tick, 5);
  });
  const windowSeconds = (performance.now() - start) / 1000;
  const answeredInWindow = answered;
  while (pending.size > 0) await Promise.all([...pending]);
  kept.lastUsed = performance.now();

  const sortedLags = Float64Array.from(lags).sort();
  return {
    sent: total,
    answeredPerSecond: answeredInWindow / windowSeconds,
    latenciesMs: Array.from(Float64Array.from(latencies).sort()),
    sendLagMs: { p99: percentileOf(sortedLags, 0.99), max: sortedLags[sortedLags.length - 1] ?? NaN },
    errors,
    statusCounts,
    connections,
    firstSlowAtSeconds: Number.isFinite(firstSlowDue) ? (firstSlowDue - start) / 1000 : undefined,
    perSecond: job.then
      ? Array.from({ length: Math.ceil(job.duration + job.then.duration) }, (_, index) => {
          const second = bySecond[index] ?? { latencies: [], failed: 0, done: 0 };
          return {
            p99: percentileOf(Float64Array.from(second.latencies).sort(), 0.99),
            ok: second.latencies.length,
            failed: second.failed,
            done: second.done,
          };
        })
      : undefined,
  };
}
