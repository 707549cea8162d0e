import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Security headers on every answer (helmet's defaults, tightened). The policy is written for the one
 * HTML page the service serves, the Swagger UI at /docs: its scripts and styles load from the service
 * itself, its icons are data: URLs, and it keeps some styles inline (React style attributes and a
 * <style> block), hence 'unsafe-inline' for styles only; scripts stay 'self'. JSON answers get the same
 * headers, where they cost nothing and stop a browser from framing or sniffing them.
 */
const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      connectSrc: ["'self'"],
      fontSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      // No upgrade-insecure-requests: TLS usually ends at the load balancer, and a development
      // server on http://localhost must still load its own docs.
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  // HSTS (helmet's default, a year with subdomains) only binds browsers that reached us over HTTPS.
};

/**
 * The headers helmet sets, worked out once. They depend on nothing in the request (no CSP nonces),
 * yet @fastify/helmet built the helmet middleware again for every request, re-parsing the policy, a
 * visible share of a `GET /items/{id}` (docs/PERFORMANCE.md; helmetjs/helmet#430 asks for the same).
 * Running helmet's own middleware once against a recording response keeps helmet the source of truth.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(recordHelmetHeaders(HELMET_OPTIONS));

function recordHelmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name] = String(value)),
    removeHeader: (name: string) => void delete headers[name],
  } as unknown as ServerResponse;
  let failure: unknown;
  helmet(options)({} as IncomingMessage, response, (error?: unknown) => (failure = error));
  if (failure) throw failure instanceof Error ? failure : new Error('helmet failed to compute the security headers', { cause: failure });
  return headers;
}

/** Sends SECURITY_HEADERS with every answer of a route (the router's own refusals add them in app.setup.ts). */
export function registerSecurityHeaders(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (_request, reply, done) => {
      void reply.headers(SECURITY_HEADERS);
      done();
    });
}

/**
 * CORS for the configured origins only (CORS_ORIGINS); none configured, no CORS headers at all, so a
 * browser on another origin cannot read answers. Tokens travel in the Authorization header, never in
 * cookies, so credentials are not allowed: even `*` cannot be abused to ride a player's session.
 */
export function enableCors(app: NestFastifyApplication, origins: string[]): void {
  if (origins.length === 0) return;
  app.enableCors({
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'Idempotency-Key', 'X-Request-Id', 'Accept-Language'],
    exposedHeaders: ['ETag', 'X-Request-Id', 'Retry-After', 'Content-Language'],
    credentials: false,
    maxAge: 600,
  });
}
