import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { FastifyRouteConfig } from './route.decorators.js';

/** The three budgets, each counted over a sliding minute. */
export const Budget = {
  /** Per signed-in user (our token's `sub`); per IP address for anonymous callers and bad tokens. */
  CALLER: 'caller',
  /** Per IP address, whoever calls. */
  IP: 'ip',
  /** Per IP address, on the routes marked @SignInRateLimit() (/auth/*). */
  SIGN_IN: 'sign-in',
} as const;

export const SIGN_IN_RATE_LIMIT = 'rate-limit:sign-in';

/** Marks, in the OpenAPI document, the operations that documentRateLimits() leaves without a 429. */
export const NOT_RATE_LIMITED = 'x-not-rate-limited';

/**
 * No budget applies here (health probes, metrics scrapes), on a controller or a route. The per-address
 * budget is spent before Nest runs (rate-limit.hook.ts), so each route also says so in its Fastify config.
 */
export const NoRateLimit = () =>
  applyDecorators(
    SkipThrottle(Object.fromEntries(Object.values(Budget).map((name) => [name, true]))),
    ApiExtension(NOT_RATE_LIMITED, true),
    (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
      const routes = descriptor
        ? [descriptor]
        : Object.values(Object.getOwnPropertyDescriptors((target as { prototype: object }).prototype));
      for (const route of routes)
        if (typeof route.value === 'function') FastifyRouteConfig({ notRateLimited: true })(target, key ?? '', route);
    },
  );

/** The stricter sign-in budget applies here (the sign-in routes create users and call the providers). */
export const SignInRateLimit = () => SetMetadata(SIGN_IN_RATE_LIMIT, true);
