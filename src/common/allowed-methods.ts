import type { FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The methods each path of the service answers, so that a request with the wrong method on a path that
 * exists gets 405 with `Allow` (RFC 9110 section 15.5.6) rather than 404. Fastify's router looks a path
 * up under the request's method only; this second router (find-my-way, the one Fastify itself uses) is
 * asked under every method. Catch-all routes (CORS's `OPTIONS *`) are left out: with them every path
 * would seem to exist.
 */
export class AllowedMethods {
  private readonly router = FindMyWay({ maxParamLength: 256 });

  constructor(fastify: FastifyInstance) {
    fastify.addHook('onRoute', (route) => {
      if (route.url === '*' || route.url === '/*') return;
      for (const method of [route.method].flat().map((name) => name.toUpperCase() as HTTPMethod)) {
        if (!this.router.hasRoute(method, route.url)) this.router.on(method, route.url, () => undefined);
      }
    });
  }

  /** The methods the path of `url` answers; empty when no route has the path. */
  of(url: string): string[] {
    const path = url.split('?')[0];
    return METHODS.filter((method) => this.router.find(method, path) !== null);
  }
}
