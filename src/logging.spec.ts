import { Writable } from 'node:stream';
import fc from 'fast-check';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
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
    expect(maskSecrets('/a?refresh_token=abc&ticket=def')).toBe('/a?refresh_token=***&ticket=***');
    expect(maskSecrets('/items?limit=5')).toBe('/items?limit=5');
    expect(maskSecrets('/tickets?ticketUid=5&sort=password')).toBe('/tickets?ticketUid=5&sort=password');
    expect(maskSecrets('/items/4f1c')).toBe('/items/4f1c');
  });

  it.each([
    ['a name Fastify decodes', '/j?pass%77ord=hunter2', '/j?pass%77ord=***'],
    ['an encoded first letter', '/j?%70assword=hunter2', '/j?%70assword=***'],
    ['a name encoded twice', '/j?pass%2577ord=hunter2', '/j?pass%2577ord=***'],
    ['any case', '/j?PassWord=hunter2', '/j?PassWord=***'],
    ['an encoded value', '/j?password=hun%74er2', '/j?password=***'],
    ['a value with + for spaces', '/j?password=hunter+2', '/j?password=***'],
    ['repeated keys', '/j?password=a&x=1&password=hunter2', '/j?password=***&x=1&password=***'],
    ['a second ?', '/j?x=1?password=hunter2', '/j?x=1?password=***'],
    ['a ; in the query', '/j?x=1;password=hunter2', '/j?x=1;password=***'],
    ['a ; in the path', '/sessions/1;password=hunter2/join', '/sessions/1;password=***/join'],
    ['a pair encoded inside a value', '/j?x=%3Fpassword%3Dhunter2', '/j?x=***'],
    ['an encoded =', '/j?password%3Dhunter2', '/j?***'],
    ['spaces before =', '/j?password+%20=hunter2', '/j?password+%20=***'],
    ['a malformed escape', '/j?password=hunter2%zz', '/j?password=***'],
    ['a value encoded five times', '/j?x=%2525252541', '/j?x=***'],
  ])('mask a secret parameter spelled with %s', (_spelling, url, masked) => {
    expect(maskSecrets(url)).toBe(masked);
  });

  it('mask whatever Fastify reads as the password, however a client spells its name and value', async () => {
    const app = Fastify();
    app.get('/j', (request) => ({ password: (request.query as Record<string, unknown>).password ?? null }));
    const percent = (char: string) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
    const ways = {
      'as is': (char: string) => char,
      'other case': (char: string) => (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()),
      encoded: percent,
      'encoded twice': (char: string) => `%25${percent(char).slice(1)}`,
    };
    const way = fc.oneof(
      { arbitrary: fc.constant(ways['as is']), weight: 10 },
      { arbitrary: fc.constant(ways.encoded), weight: 4 },
      { arbitrary: fc.constant(ways['other case']), weight: 1 },
      { arbitrary: fc.constant(ways['encoded twice']), weight: 1 },
    );
    /** `text`, each character written one of the ways (mostly as is, so that Fastify often reads it). */
    const spelled = (text: string) =>
      fc
        .array(way, { minLength: text.length, maxLength: text.length })
        .map((chosen) => [...text].map((char, index) => chosen[index](char)).join(''));
    const secret = fc.stringMatching(/^[A-Za-z0-9]{8,12}$/);
    const valueWay = fc.constantFrom(ways['as is'], ways['as is'], ways.encoded, ways['encoded twice']);
    const before = fc.constantFrom('', 'limit=5&', 'password=a&', 'x=1?', 'x=1;');
    /** The text as any decoder could read it. */
    const revealed = (text: string): string => {
      for (let previous = ''; previous !== text;) {
        previous = text;
        text = text.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      }
      return text;
    };
    let readAsPassword = 0;
    try {
      await fc.assert(
        fc.asyncProperty(before, spelled('password'), spelled('='), secret, valueWay, async (prefix, name, equals, value, written) => {
          const url = `/j?${prefix}${name}${equals}${[...value].map(written).join('')}`;
          const read = (await app.inject({ url })).json<{ password: unknown }>().password;
          if (read === value) readAsPassword++;
          expect({ url, leaked: revealed(maskSecrets(url)).includes(value) }).toEqual({ url, leaked: false });
        }),
        // Seeded so that the count below is the same every run: unseeded, it once came to 10.
        { numRuns: 300, seed: 20261127 },
      );
    } finally {
      await app.close();
    }
    // The spellings include many that Fastify hands the route as its password.
    expect(readAsPassword).toBeGreaterThan(10);
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
