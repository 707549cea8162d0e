import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { ErrorBody } from '../common/errors.js';

/**
 * The security headers of the one HTML page the service serves, the Swagger UI at /docs (helmet's
 * defaults, tightened): its scripts and styles load from the service itself, its icons are data: URLs,
 * and it keeps some styles inline (React style attributes and a <style> block), hence 'unsafe-inline'
 * for styles only; scripts stay 'self'.
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
export const DOCUMENT_HEADERS: Readonly<Record<string, string>> = Object.freeze(recordHelmetHeaders(HELMET_OPTIONS));

/**
 * The headers of every other answer (JSON): those a browser heeds on a response that is not a page it
 * renders, as the OWASP REST Security Cheat Sheet lists them: nothing may load, frame or sniff it, and
 * HTTPS only. The rest of helmet's set (cross-origin isolation, DNS prefetch, legacy IE and Flash
 * switches) governs documents; sent with every API answer it was most of a small answer's header bytes
 * and a measurable share of its cost (docs/PERFORMANCE.md).
 */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': DOCUMENT_HEADERS['Strict-Transport-Security'],
  'X-Content-Type-Options': DOCUMENT_HEADERS['X-Content-Type-Options'],
  'X-Frame-Options': DOCUMENT_HEADERS['X-Frame-Options'],
  'Referrer-Policy': DOCUMENT_HEADERS['Referrer-Policy'],
});

/**
 * An error answer written on a socket by hand, where Node.js gives no response object (a connection its
 * HTTP parser refused, an upgrade): the error body with the headers every JSON answer has, and
 * `Connection: close`, since the connection is closed after it.
 */
export function rawErrorAnswer(body: ErrorBody): string {
  const json = JSON.stringify(body);
  const all = {
    ...API_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(json)),
    'X-Request-Id': body.requestId,
    Connection: 'close',
  };
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\n${lines.join('')}\r\n${json}`;
}

/**
 * The headers of the LiveOps console's page and files (/console): helmet's document set under a policy
 * stricter than the Swagger UI's: no inline style either (the console has none), and requests to the
 * service itself plus `connectSources`, the identity provider's origin whose discovery document and
 * token endpoint the production sign-in calls from the browser.
 */
export function consoleHeaders(connectSources: string[]): Readonly<Record<string, string>> {
  const documentPolicy = HELMET_OPTIONS.contentSecurityPolicy as { directives: Record<string, string[]> };
  return Object.freeze(
    recordHelmetHeaders({
      ...HELMET_OPTIONS,
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          ...documentPolicy.directives,
          connectSrc: ["'self'", ...connectSources],
          fontSrc: ["'self'"],
          styleSrc: ["'self'"],
        },
      },
    }),
  );
}

/** Whether a request path is the Swagger UI's page at `docsPath` or one of its files (its JSON document is not). */
function isDocumentPath(url: string, docsPath: string): boolean {
  if (!url.startsWith(docsPath)) return false;
  const next = url[docsPath.length];
  return next === undefined || next === '/' || next === '?';
}

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

/**
 * Sends the security headers with every answer of a route: DOCUMENT_HEADERS under `docsPath` (the
 * Swagger UI), API_HEADERS elsewhere (the router's own refusals add API_HEADERS in app.setup.ts).
 */
export function registerSecurityHeaders(app: NestFastifyApplication, docsPath: string): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request, reply, done) => {
      void reply.headers(isDocumentPath(request.url, docsPath) ? DOCUMENT_HEADERS : API_HEADERS);
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
    exposedHeaders: ['ETag', 'X-Request-Id', 'Retry-After', 'Content-Language', 'X-Next-Skip'],
    credentials: false,
    maxAge: 600,
  });
}
