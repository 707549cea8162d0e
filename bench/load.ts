/**
 * The load generator: a process of its own (forked by bench/run.ts), so that the load's CPU is never
 * the measured server's. It takes jobs over IPC, runs autocannon on each and answers with the figures.
 *
 * Each connection gets a fixed share of the job's requests (request i goes to connection i mod n), so
 * that requests that must not overlap (gifts of disjoint pairs) never run at the same time on two
 * connections, and reads rotate over many ids. Latencies are kept exactly (autocannon's own histogram
 * rounds to whole milliseconds). Jobs with `openLoop` run at a fixed arrival rate instead
 * (bench/open-loop-driver.ts).
 */
import { randomUUID } from 'node:crypto';
import autocannon, { type Request } from 'autocannon';
import { type OpenLoopJob, type OpenLoopResult, percentileOf, runOpenLoop } from './open-loop-driver.js';

export interface LoadJob {
  id: number;
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** A fixed number of requests instead (every response awaited: for exact checks of writes). */
  amount?: number;
  /** With `amount`: give up after this many seconds (a stalled server must not hang the run). */
  maxSeconds?: number;
  requests: Request[];
  /**
   * `refresh`: each request is a sign-in the first time a connection sends it; after that the
   * connection spends the refresh token it holds at POST /auth/refresh, as a client keeping a session
   * alive does (a refresh token works once, so a fixed request list cannot express it).
   * `new-device`: each request's body names a device id never sent before (a fresh random UUID), as
   * the first launch of a game on a new device does.
   */
  chain?: 'refresh' | 'new-device';
}

export interface LoadResult {
  id: number;
  seconds: number;
  responses: number;
  requestsPerSecond: number;
  /** Milliseconds, over 2xx responses (as autocannon reports them). */
  latency: { p50: number; p99: number; mean: number; max: number };
  /** Connection errors and timeouts. */
  errors: number;
  statusCounts: Record<string, number>;
}

interface ChainContext {
  refreshToken?: string;
}

/**
 * See LoadJob.chain. Autocannon keeps one `context` per connection and clears it each time the
 * connection's request list starts over, so the list is long: one sign-in, then refreshes.
 */
function refreshChain(signIn: Request): Request[] {
  const refresh: Request = {
    ...signIn,
    setupRequest: (request, context: ChainContext) =>
      context.refreshToken
        ? {
            ...request,
            method: 'POST',
            path: '/auth/refresh',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ refreshToken: context.refreshToken }),
          }
        : request,
  };
  const keep: Request['onResponse'] = (status, body, context: ChainContext) => {
    context.refreshToken = status >= 200 && status < 300 ? (JSON.parse(body) as ChainContext).refreshToken : undefined;
  };
  return [{ ...signIn, onResponse: keep }, ...Array.from({ length: 9999 }, () => ({ ...refresh, onResponse: keep }))];
}

/** See LoadJob.chain. */
function newDevice(request: Request): Request {
  return { ...request, setupRequest: (sent) => ({ ...sent, body: JSON.stringify({ deviceId: randomUUID() }) }) };
}

async function run(job: LoadJob): Promise<LoadResult> {
  const shares: Request[][] = Array.from({ length: job.connections }, () => []);
  if (job.chain === 'new-device') {
    shares.forEach((_, index) => (shares[index] = [newDevice(job.requests[index % job.requests.length])]));
  } else if (job.chain === 'refresh') {
    shares.forEach((_, index) => (shares[index] = refreshChain(job.requests[index % job.requests.length])));
  } else if (job.requests.length >= job.connections) {
    job.requests.forEach((request, index) => shares[index % job.connections].push(request));
  } else {
    shares.forEach((share, index) => share.push(job.requests[index % job.requests.length]));
  }
  let nextShare = 0;
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let responses = 0;

  const started = process.hrtime.bigint();
  const instance = autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.duration,
    amount: job.amount,
    timeout: 30,
    requests: shares[0],
    setupClient: (client) => client.setRequests(shares[nextShare++ % shares.length]),
  });
  const limit = job.amount && job.maxSeconds ? setTimeout(() => instance.stop(), job.maxSeconds * 1000) : undefined;
  instance.on('response', (_client, statusCode, _bytes, milliseconds) => {
    responses++;
    statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
    if (statusCode >= 200 && statusCode < 300) latencies.push(milliseconds);
  });
  const result = await instance;
  clearTimeout(limit);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;

  const sorted = Float64Array.from(latencies).sort();
  return {
    id: job.id,
    seconds,
    responses,
    requestsPerSecond: responses / seconds,
    latency: {
      p50: percentileOf(sorted, 0.5),
      p99: percentileOf(sorted, 0.99),
      mean: latencies.length ? latencies.reduce((sum, value) => sum + value, 0) / latencies.length : NaN,
      max: sorted.length ? sorted[sorted.length - 1] : NaN,
    },
    errors: result.errors,
    statusCounts,
  };
}

/** A job at a fixed arrival rate (bench/open-loop-driver.ts) instead of autocannon's closed loop. */
export type OpenLoopMessage = OpenLoopJob & { id: number; openLoop: true };
export type OpenLoopAnswer = OpenLoopResult & { id: number };

process.on('message', (job: LoadJob | OpenLoopMessage) => {
  const running: Promise<LoadResult | OpenLoopAnswer> =
    'openLoop' in job ? runOpenLoop(job).then((result) => ({ ...result, id: job.id })) : run(job);
  running.then(
    (result) => process.send!({ ok: true, result }),
    (error: unknown) => process.send!({ ok: false, id: job.id, message: String(error) }),
  );
});
process.send!({ ready: true });
