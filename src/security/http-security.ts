import helmet from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * Security headers on every answer (@fastify/helmet's defaults, tightened). The policy is written for
 * the one HTML page the service serves, the Swagger UI at /docs: its scripts and styles load from the
 * service itself, its icons are data: URLs, and it keeps some styles inline (React style attributes
 * and a <style> block), hence 'unsafe-inline' for styles only; scripts stay 'self'. JSON answers get
 * the same headers, where they cost nothing and stop a browser from framing or sniffing them.
 */
export function registerSecurityHeaders(app: NestFastifyApplication): void {
  // Queued on Fastify's plugin chain; app.init()/listen() load it before the first request.
  void app.getHttpAdapter().getInstance().register(helmet, {
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
