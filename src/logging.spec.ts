import { Writable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { logRequest, maskSecrets } from './logging.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const request = (url: string) =>
  ({ id: 'r1', method: 'GET', url, headers: { authorization: 'jwt secret-token' } }) as unknown as FastifyRequest;
const reply = (statusCode: number) => ({ statusCode, elapsedTime: 3.21 }) as unknown as FastifyReply;

describe('request logs', () => {
  it('mask passwords and tokens in logged URLs', () => {
    expect(maskSecrets('/sessions/1/join?password=hunter2&x=1')).toBe('/sessions/1/join?password=***&x=1');
    expect(maskSecrets('/a?token=abc')).toBe('/a?token=***');
    expect(maskSecrets('/items?limit=5')).toBe('/items?limit=5');
  });

  it('write one JSON line per request with the request id, and no headers or secrets', () => {
    const { logger, lines } = capture();
    logRequest(logger, request('/sessions/1/join?password=hunter2'), reply(200));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { id: 'r1', method: 'GET', url: '/sessions/1/join?password=***' },
      res: { statusCode: 200 },
      responseTime: 3.2,
    });
    expect(lines[0]).not.toContain('secret-token');
    expect(lines[0]).not.toContain('hunter2');
  });

  it('log client errors as warnings and server errors as errors, and skip probes', () => {
    const { logger, lines } = capture();
    logRequest(logger, request('/items'), reply(404));
    logRequest(logger, request('/items'), reply(503));
    logRequest(logger, request('/health'), reply(200));
    expect(lines.map((line) => JSON.parse(line).level)).toEqual([40, 50]);
  });
});
