// autocannon ships no types and @types/autocannon is not installed: the little bench/load.ts uses.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Rewrites the request before each send, from the connection's context. */
    setupRequest?: (request: Request, context: any) => Request;
    onResponse?: (status: number, body: string, context: any) => void;
  }

  export interface Client extends EventEmitter {
    setRequests(requests: Request[]): void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    requests?: Request[];
    setupClient?: (client: Client) => void;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    requests: { total: number; sent: number };
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
    on(event: 'response', listener: (client: Client, statusCode: number, bytes: number, milliseconds: number) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
