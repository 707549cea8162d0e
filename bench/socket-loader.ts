/**
 * A socket loader of the sockets measure (bench/sockets.ts): a process of its own, so that thousands
 * of client sockets cost the measured service nothing but their server side. It opens the sockets it
 * is given from its own loopback source addresses (each address has its own ephemeral ports), some by
 * header and some by ticket as docs/REALTIME.md says, then counts every frame each socket receives and
 * the commit-to-client latency of each, and answers over IPC.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';

export interface SocketSpec {
  userUid: string;
  token: string;
  /** Opened with `?ticket=` from POST /realtime/tickets (a browser's way) rather than the header. */
  byTicket: boolean;
}

export type LoaderRequest =
  | { kind: 'open'; url: string; localAddresses: string[]; sockets: SocketSpec[]; concurrency: number }
  | { kind: 'report' }
  | { kind: 'close' };

export interface OpenResult {
  kind: 'opened';
  opened: number;
  /** Sockets that did not open, by reason (HTTP status of the refused upgrade, or the error). */
  failures: Record<string, number>;
}

export interface LoaderReport {
  kind: 'report';
  /** Event frames received by each socket, in the order of the `open` request (the first frame excluded; -1: it did not open). */
  frames: number[];
  /** From the event's `at` (written in its transaction) to its arrival here, in ms, every frame. */
  latenciesMs: number[];
  /** Sockets the server closed, by close code. */
  closed: Record<string, number>;
}

const sockets: WebSocket[] = [];
const frames: number[] = [];
const latencies: number[] = [];
const closed: Record<string, number> = {};
let closing = false;

const count = (tally: Record<string, number>, key: string) => (tally[key] = (tally[key] ?? 0) + 1);

async function ticketFor(url: string, token: string): Promise<string> {
  const response = await fetch(`${url}/realtime/tickets`, { method: 'POST', headers: { authorization: `jwt ${token}` } });
  if (response.status !== 201) throw new Error(`ticket ${response.status}`);
  return ((await response.json()) as { ticket: string }).ticket;
}

/** Opens one socket; resolves once its first frame (`realtime.ready`) came. */
async function open(url: string, spec: SocketSpec, index: number, localAddress: string): Promise<void> {
  const base = `${url.replace(/^http/, 'ws')}/realtime`;
  const socket = spec.byTicket
    ? new WebSocket(`${base}?ticket=${await ticketFor(url, spec.token)}`, { localAddress })
    : new WebSocket(base, { localAddress, headers: { authorization: `jwt ${spec.token}` } });
  await new Promise<void>((resolve, reject) => {
    socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade ${response.statusCode}`)));
    socket.once('error', reject);
    socket.once('message', () => {
      socket.removeListener('error', reject);
      resolve();
    });
  });
  sockets[index] = socket;
  frames[index] = 0;
  socket.on('message', (raw: Buffer) => {
    frames[index] += 1;
    const at = /"at":"([^"]+)"/.exec(raw.toString('latin1'))?.[1];
    if (at) latencies.push(Date.now() - Date.parse(at));
  });
  socket.on('error', () => undefined);
  socket.once('close', (code) => {
    if (!closing) count(closed, String(code));
  });
}

async function openAll(request: Extract<LoaderRequest, { kind: 'open' }>): Promise<OpenResult> {
  const failures: Record<string, number> = {};
  let next = 0;
  let opened = 0;
  const worker = async () => {
    while (next < request.sockets.length) {
      const index = next++;
      const localAddress = request.localAddresses[index % request.localAddresses.length];
      try {
        await open(request.url, request.sockets[index], index, localAddress);
        opened += 1;
      } catch (error) {
        frames[index] = -1;
        count(failures, (error as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: request.concurrency }, worker));
  return { kind: 'opened', opened, failures };
}

process.on('message', (request: LoaderRequest) => {
  const answer = async (): Promise<OpenResult | LoaderReport | undefined> => {
    switch (request.kind) {
      case 'open':
        return openAll(request);
      case 'report':
        return { kind: 'report', frames, latenciesMs: latencies, closed };
      case 'close':
        closing = true;
        for (const socket of sockets) socket?.terminate();
        await sleep(100);
        process.disconnect?.();
        return undefined;
    }
  };
  void answer().then((message) => message && process.send!(message));
});
process.send!({ kind: 'ready' });
