import type { IncomingMessage } from 'node:http';
import { maskSecrets, requestLogOptions } from './logging.js';

describe('request logs', () => {
  it('mask passwords and tokens in logged URLs', () => {
    expect(maskSecrets('/sessions/1/join?password=hunter2&x=1')).toBe('/sessions/1/join?password=***&x=1');
    expect(maskSecrets('/a?token=abc')).toBe('/a?token=***');
    expect(maskSecrets('/items?limit=5')).toBe('/items?limit=5');
  });

  it('log no request headers, so no Authorization token', () => {
    const options = requestLogOptions('info');
    const pinoHttp = options.pinoHttp as { serializers: { req: (request: IncomingMessage) => unknown } };
    const logged = pinoHttp.serializers.req({
      id: 'r1',
      method: 'GET',
      url: '/sessions/1/join?password=hunter2',
      headers: { authorization: 'jwt secret-token' },
    } as unknown as IncomingMessage);
    expect(JSON.stringify(logged)).not.toContain('secret-token');
    expect(JSON.stringify(logged)).not.toContain('hunter2');
    expect(logged).toEqual({ id: 'r1', method: 'GET', url: '/sessions/1/join?password=***' });
  });
});
