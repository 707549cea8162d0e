import { Agent, request } from 'node:http';
import type { Reply } from './cluster.js';

/** One request from `localAddress`, over that address's keep-alive connections; a network failure is status 0. */
export function callFrom(agent: Agent, base: string, method: string, path: string, token?: string, body?: string): Promise<Reply> {
  const started = Date.now();
  return new Promise((resolve) => {
    const outgoing = request(
      `${base}${path}`,
      {
        method,
        agent,
        timeout: 20_000,
        headers: {
          ...(token ? { authorization: `jwt ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // kept as text
          }
          resolve({ status: response.statusCode ?? 0, body: parsed, took: Date.now() - started });
        });
        response.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ status: 0, body: { error: error.code }, took: Date.now() - started }),
        );
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    outgoing.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: { error: error.code }, took: Date.now() - started }));
    outgoing.end(body);
  });
}

export const agentFrom = (localAddress: string) => new Agent({ keepAlive: true, maxSockets: 8, localAddress });
