/**
 * The realtime client of the game backend (docs/REALTIME.md): one socket to `/realtime` that receives
 * the signed-in player's events as they happen, typed by the OpenAPI document's event schemas, and
 * that reconnects by itself with backoff, resuming after the last event received, so that nothing is
 * missed nor received twice.
 *
 *   const realtime = connectRealtime({ baseUrl: 'https://game.example.com', token: () => session.token,
 *     onEvent: (event) => { if (event.type === 'ticket.updated') joinMatch(event.data.sessionUid); } });
 *   ...
 *   realtime.close();
 *
 * It opens each socket with a single-use ticket (POST /realtime/tickets), which works in browsers too
 * (they cannot set headers on a WebSocket). Needs a global `WebSocket` and `fetch` (browsers, Node 22+).
 */
import type { RealtimeEvent } from './events.js';

export type { RealtimeEvent };

/** Close codes of /realtime (docs/REALTIME.md). */
export const RealtimeCloseCode = {
  GOING_AWAY: 1001,
  TOKEN_EXPIRED: 4401,
  REVOKED: 4403,
  SLOW_CONSUMER: 4413,
  TOO_MANY_SOCKETS: 4429,
} as const;

export interface RealtimeOptions {
  /** Where the service is, e.g. `https://game.example.com`. */
  baseUrl: string;
  /** Our JWT, or a function returning the current one (read again at every reconnection). */
  token: string | (() => string | undefined);
  /** Resume after this event id (from an earlier session of the client); default: from now on. */
  after?: string;
  onEvent(event: RealtimeEvent): void;
  /** A socket opened (again); `lastId` is where it resumes. */
  onOpen?(lastId: string | undefined): void;
  /** A socket closed; `willRetry` says whether the client reconnects by itself. */
  onClose?(code: number, reason: string, willRetry: boolean): void;
  /** First and longest wait before reconnecting, in ms (doubling, with jitter). Default 500 and 30,000. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Other implementations (tests, Node before 22). */
  WebSocket?: typeof WebSocket;
  fetch?: typeof fetch;
}

export interface RealtimeConnection {
  /** The id of the last event received: resume after it (the `after` option) in a later session. */
  readonly lastId: string | undefined;
  /** Closes the socket and stops reconnecting. */
  close(): void;
}

export function connectRealtime(options: RealtimeOptions): RealtimeConnection {
  const WebSocketImpl = options.WebSocket ?? globalThis.WebSocket;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const initial = options.backoff?.initialMs ?? 500;
  const longest = options.backoff?.maxMs ?? 30_000;
  let lastId = options.after;
  let socket: WebSocket | undefined;
  let stopped = false;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const token = () => (typeof options.token === 'function' ? options.token() : options.token);

  const retryLater = () => {
    if (stopped) return;
    const wait = Math.min(longest, initial * 2 ** failures) * (0.5 + Math.random() / 2);
    failures += 1;
    timer = setTimeout(() => void open(), wait);
  };

  const open = async (): Promise<void> => {
    if (stopped) return;
    let ticket: string;
    try {
      const response = await fetchImpl(new URL('/realtime/tickets', options.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${token() ?? ''}` },
      });
      if (!response.ok) throw new Error(`POST /realtime/tickets answered ${response.status}`);
      ({ ticket } = (await response.json()) as { ticket: string });
    } catch {
      retryLater();
      return;
    }
    const url = new URL('/realtime', options.baseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('ticket', ticket);
    if (lastId !== undefined) url.searchParams.set('after', lastId);
    const current = new WebSocketImpl(url);
    socket = current;
    current.onmessage = (message: MessageEvent) => {
      const frame = JSON.parse(String(message.data)) as RealtimeEvent | { id: string; type: 'realtime.ready' };
      if (frame.type === 'realtime.ready') {
        failures = 0;
        // Without a resume point, the socket's starting point is one: nothing after it will be missed.
        lastId ??= frame.id;
        options.onOpen?.(lastId);
        return;
      }
      lastId = frame.id;
      options.onEvent(frame);
    };
    current.onclose = (event: CloseEvent) => {
      if (socket === current) socket = undefined;
      // Revoked (or banned): reconnecting would be refused; the player must sign in again.
      const willRetry = !stopped && event.code !== RealtimeCloseCode.REVOKED;
      options.onClose?.(event.code, event.reason, willRetry);
      if (willRetry) retryLater();
    };
  };

  void open();
  return {
    get lastId() {
      return lastId;
    },
    close() {
      stopped = true;
      clearTimeout(timer);
      socket?.close(1000, 'client closed');
    },
  };
}
