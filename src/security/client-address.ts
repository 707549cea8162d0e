import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { AppConfig } from '../config/environment.js';

/**
 * The client's address as Fastify's `request.ip` gives it under the same TRUST_PROXY, for requests
 * Fastify never sees: a WebSocket upgrade goes from the HTTP server straight to ws, yet must count
 * against the same address as the client's REST requests. Fastify's rule (lib/request.js) with the
 * library it uses: the socket's address, or, when proxies are trusted, the nearest address in
 * X-Forwarded-For that is not one of them.
 */
export function clientAddressOf(trustProxy: AppConfig['trustProxy']): (request: IncomingMessage) => string | undefined {
  if (trustProxy === false) return (request) => request.socket.remoteAddress;
  const trust = trustedProxies(trustProxy);
  return (request) => proxyAddr(request, trust);
}

/**
 * Whether a peer's address is one of the proxies TRUST_PROXY names (`true`: every peer is one), as
 * Fastify and the function above judge the nearest hop.
 */
export function trustedProxies(trustProxy: AppConfig['trustProxy']): (address: string) => boolean {
  if (trustProxy === false) return () => false;
  if (trustProxy === true) return () => true;
  const trust = proxyAddr.compile(trustProxy);
  return (address) => trust(address, 0);
}
