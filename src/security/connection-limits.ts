import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_IPV6_SUBNET_PREFIX, normalizeIp } from '@nestjs/throttler';
import type { AppConfig } from '../config/environment.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { trustedProxies } from './client-address.js';

/** Connections held by each client address, against a bound: the bookkeeping of limitConnections. */
export class ConnectionsByAddress {
  private readonly held = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes one of the address's places; false when it holds them all already (and nothing is taken). */
  take(address: string): boolean {
    const held = this.held.get(address) ?? 0;
    if (held >= this.max) return false;
    this.held.set(address, held + 1);
    return true;
  }

  /** Gives one back (the connection closed). */
  release(address: string): void {
    const held = this.held.get(address) ?? 0;
    if (held <= 1) this.held.delete(address);
    else this.held.set(address, held - 1);
  }

  /** Connections the address holds now. */
  heldBy(address: string): number {
    return this.held.get(address) ?? 0;
  }

  /** Addresses holding any. */
  get addresses(): number {
    return this.held.size;
  }
}

/**
 * Bounds the connections (HTTP and WebSocket alike) clients hold of the server, so that sockets alone
 * never take every file descriptor of the process, nor one address every connection: HTTP_MAX_CONNECTIONS
 * in all (Node.js closes one more as soon as it is accepted), HTTP_MAX_CONNECTIONS_PER_ADDRESS for each
 * client address, counted by the socket's address (an IPv6 address by its /64, as the rate limits count
 * it). A proxy TRUST_PROXY names carries many clients and is not limited as one. A connection past a
 * bound is closed before any byte of it is read: that costs least under a flood, and an answer
 * written before the request is read would often be lost to the reset that closing a socket with
 * unread bytes sends.
 */
export function limitConnections(
  server: Server,
  config: Pick<AppConfig, 'http' | 'trustProxy'>,
  metrics: Pick<MetricsService, 'countConnectionOpened' | 'countConnectionClosed' | 'countConnectionRefused'>,
): void {
  server.maxConnections = config.http.maxConnections;
  server.on('drop', () => metrics.countConnectionRefused('total'));
  const isProxy = trustedProxies(config.trustProxy);
  const byAddress = new ConnectionsByAddress(config.http.maxConnectionsPerAddress);
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    // No address: the connection is gone already.
    if (peer === undefined) return;
    const address = isProxy(peer) ? undefined : normalizeIp(peer, DEFAULT_IPV6_SUBNET_PREFIX);
    if (address !== undefined && !byAddress.take(address)) {
      metrics.countConnectionRefused('address');
      socket.destroy();
      return;
    }
    metrics.countConnectionOpened();
    socket.once('close', () => {
      metrics.countConnectionClosed();
      if (address !== undefined) byAddress.release(address);
    });
  });
}
