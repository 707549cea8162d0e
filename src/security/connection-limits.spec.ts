import { ConnectionsByAddress } from './connection-limits.js';
import { trustedProxies } from './client-address.js';

describe('connections by client address', () => {
  it('gives each address its own places, refuses one more, and takes it again once one is given back', () => {
    const counts = new ConnectionsByAddress(2);
    expect([counts.take('203.0.113.7'), counts.take('203.0.113.7'), counts.take('203.0.113.7')]).toEqual([true, true, false]);
    expect(counts.heldBy('203.0.113.7')).toBe(2);
    expect(counts.take('198.51.100.4')).toBe(true);
    counts.release('203.0.113.7');
    expect(counts.take('203.0.113.7')).toBe(true);
  });

  it('forgets an address once it holds none', () => {
    const counts = new ConnectionsByAddress(3);
    counts.take('203.0.113.7');
    counts.take('203.0.113.7');
    counts.release('203.0.113.7');
    counts.release('203.0.113.7');
    expect(counts.heldBy('203.0.113.7')).toBe(0);
    expect(counts.addresses).toBe(0);
  });
});

describe('the proxies TRUST_PROXY names', () => {
  it('are none when unset, every peer with true, and the listed addresses and ranges otherwise', () => {
    expect(trustedProxies(false)('10.0.0.1')).toBe(false);
    expect(trustedProxies(true)('203.0.113.7')).toBe(true);
    const listed = trustedProxies(['10.0.0.0/8', 'loopback']);
    expect(['10.1.2.3', '127.0.0.1', '::1', '::ffff:10.0.0.9', '192.0.2.1'].map(listed)).toEqual([true, true, true, true, false]);
  });
});
