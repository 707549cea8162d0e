import { timeoutOptions } from './request-timeouts.js';

const limits = {
  bodyTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 72_000,
  maxConnections: 100,
  maxConnectionsPerAddress: 10,
};

describe('the timeouts handed to Fastify and Node.js', () => {
  it('bound headers, silence and keep-alive, and never a whole request (an upload may take long)', () => {
    expect(timeoutOptions({ ...limits, headersTimeoutMs: 10_000 })).toEqual({
      connectionTimeout: 60_000,
      keepAliveTimeout: 72_000,
      requestTimeout: 0,
      http: { headersTimeout: 10_000, requestTimeout: 0, connectionsCheckingInterval: 1000 },
    });
  });

  it('look for late headers often enough that a short timeout holds', () => {
    expect(timeoutOptions({ ...limits, headersTimeoutMs: 300 }).http.connectionsCheckingInterval).toBe(75);
    expect(timeoutOptions({ ...limits, headersTimeoutMs: 100 }).http.connectionsCheckingInterval).toBe(25);
  });
});
