import type { FastifyInstance, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { type ErrorBody, ErrorCode } from './errors.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** A route's path by segments: its text where fixed, null where it takes a parameter. */
type Segments = ReadonlyArray<string | null>;

const segmentsOf = (url: string): Segments =>
  url
    .split('/')
    .slice(1)
    .map((segment) => (segment.startsWith(':') || segment.includes('*') ? null : segment));

/**
 * The methods each path of the service answers, so that a request with the wrong method on a path that
 * exists gets 405 with `Allow` (RFC 9110 section 15.5.6) rather than 404. Fastify's router looks a path
 * up under the request's method only; this second router (find-my-way, the one Fastify itself uses) is
 * asked under every method. Catch-all routes (CORS's `OPTIONS *`) are left out: with them every path
 * would seem to exist.
 *
 * A path that a route names with fixed segments (`/tickets/stats`, `/storage/read`) is that route's,
 * whatever the method: the routes that take a parameter in their place (`PUT /tickets/{id}`, `GET
 * /storage/{collection}`) never take that value (an id is a UUID; `read` is no collection name, a rule
 * test/route-table.e2e-spec.ts holds every route to), so such a path answers the fixed route's methods
 * and any other is 405, rather than the parameter route's 400 or, worse, its answer for a record of
 * that name.
 */
export class AllowedMethods {
  private readonly router = FindMyWay({ maxParamLength: 256 });
  private readonly urls = new Set<string>();
  /** Per route with parameters, the fixed paths that take some of its paths; computed when first asked. */
  private readonly shadows = new Map<string, Segments[]>();

  constructor(fastify: FastifyInstance) {
    fastify.addHook('onRoute', (route) => {
      if (route.url === '*' || route.url === '/*') return;
      for (const method of [route.method].flat().map((name) => name.toUpperCase() as HTTPMethod)) {
        if (!this.router.hasRoute(method, route.url)) this.router.on(method, route.url, () => undefined);
      }
      this.urls.add(route.url);
      this.shadows.clear();
    });
  }

  /** The methods the path of `url` answers; empty when no route has the path. */
  of(url: string): string[] {
    const path = url.split('?')[0];
    const found = METHODS.map((method) => ({ method, route: this.router.find(method, path) })).filter(({ route }) => route !== null);
    const parameters = (route: (typeof found)[number]['route']) => Object.keys(route!.params).length;
    // The routes that name the path with the fewest parameters hold it (find-my-way's own order within a method).
    const fewest = Math.min(...found.map(({ route }) => parameters(route)));
    return found.filter(({ route }) => parameters(route) === fewest).map(({ method }) => method);
  }

  /**
   * Answers 405 before the route runs when the request's route took the path by a parameter where
   * another route names it with fixed segments (`PUT /tickets/stats` reaches `PUT /tickets/:id`).
   */
  refuseShadowedPaths(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request, reply, done) => {
      const route = request.routeOptions.url;
      if (route === undefined || !route.includes(':') || !this.shadowed(route, request.url)) return done();
      const allowed = this.of(request.url);
      if (allowed.includes(request.method)) return done();
      void reply
        .code(405)
        .header('Allow', allowed.join(', '))
        .type('application/json; charset=utf-8')
        .send(methodNotAllowed(request, allowed));
    });
  }

  /** Whether a fixed path of another route takes `url` from `route` (then `of` says whose it is). */
  private shadowed(route: string, url: string): boolean {
    let shadows = this.shadows.get(route);
    if (!shadows) {
      shadows = this.shadowsOf(segmentsOf(route));
      this.shadows.set(route, shadows);
    }
    if (shadows.length === 0) return false;
    const path = url.split('?')[0].split('/').slice(1);
    return shadows.some((shadow) => shadow.every((segment, index) => segment === null || segment === path[index]));
  }

  /** The route paths as long as `route` that are fixed where it has a parameter, and agree with it elsewhere. */
  private shadowsOf(route: Segments): Segments[] {
    return [...this.urls]
      .map(segmentsOf)
      .filter(
        (other) =>
          other.length === route.length &&
          other.some((segment, index) => segment !== null && route[index] === null) &&
          other.every((segment, index) => segment === null || route[index] === null || route[index] === segment),
      );
  }
}

/** The 405 of a path that exists under other methods. */
export function methodNotAllowed(request: FastifyRequest, allowed: string[]): ErrorBody {
  return {
    status: 405,
    code: ErrorCode.METHOD_NOT_ALLOWED,
    message: `${request.method} is not allowed on ${request.url.split('?')[0]}: it answers ${allowed.join(', ')}`,
    requestId: request.id,
  };
}
