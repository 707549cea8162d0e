import Fastify from 'fastify';
import type { AppConfig } from '../config/environment.js';
import { clientAddressOf } from './client-address.js';

describe('the client address of an upgrade', () => {
  const settings: Array<AppConfig['trustProxy']> = [false, true, ['10.0.0.0/8'], ['loopback', '203.0.113.7']];
  const requests = [
    { remoteAddress: '10.1.2.3', headers: {} },
    { remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '198.51.100.4' } },
    { remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '198.51.100.4, 10.9.9.9' } },
    { remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '2001:db8::1, 203.0.113.7' } },
    { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': 'spoofed, 198.51.100.4' } },
    { remoteAddress: '192.0.2.8', headers: { 'x-forwarded-for': '198.51.100.4' } },
  ];

  it.each(settings)('is the address Fastify gives a REST request, with TRUST_PROXY=%j', async (trustProxy) => {
    const app = Fastify({ trustProxy });
    const addressOf = clientAddressOf(trustProxy);
    app.get('/', (request) => ({ fastify: request.ip, upgrade: addressOf(request.raw) }));
    try {
      for (const { remoteAddress, headers } of requests) {
        const { fastify, upgrade } = (await app.inject({ url: '/', remoteAddress, headers })).json<Record<string, string>>();
        expect({ remoteAddress, headers, upgrade }).toEqual({ remoteAddress, headers, upgrade: fastify });
      }
    } finally {
      await app.close();
    }
  });
});
