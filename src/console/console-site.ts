import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppConfig } from '../config/environment.js';
import { API_HEADERS, consoleHeaders } from '../security/http-security.js';
import { connectSources, consoleConfig, pageWithConfig } from './console-config.js';

/** Where the console is served; its built files are under `console/dist/` of the package (npm run console:build). */
export const CONSOLE_PATH = '/console';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** The package's folder: the nearest one above this module with a package.json (src/ under ts, dist/src/ built, /app in the image). */
function packageRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder);
    if (parent === folder) throw new Error('the console cannot find the package it belongs to (no package.json above it)');
    folder = parent;
  }
  return folder;
}

/**
 * Serves the LiveOps console from this process, as the Swagger UI is: outside Nest's guards (the page
 * and its files are public; every call it makes is an API request with the admin's token). Its files
 * are read once at start: hashed assets are cached for a year, and any other path under /console is the
 * page itself, so that every screen has a URL a support agent can paste. Without a build the service
 * still starts, and /console says how to build it.
 */
export function serveConsole(fastify: FastifyInstance, config: AppConfig, folder = join(packageRoot(), 'console', 'dist')): void {
  const signIn = consoleConfig(config);
  const headers = consoleHeaders(connectSources(signIn));
  const indexFile = join(folder, 'index.html');
  const built = existsSync(indexFile);
  const page = built ? pageWithConfig(readFileSync(indexFile, 'utf8'), signIn) : undefined;
  const assets = new Map<string, { body: Buffer; type: string }>();
  const assetFolder = join(folder, 'assets');
  if (built && existsSync(assetFolder)) {
    for (const name of readdirSync(assetFolder)) {
      const type = TYPES[extname(name)];
      if (type) assets.set(name, { body: readFileSync(join(assetFolder, name)), type });
    }
  }

  const sendPage = (reply: FastifyReply) => {
    if (page === undefined) {
      return reply
        .code(503)
        .headers(API_HEADERS)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run console:build` (npm start and npm run build do it), then restart.');
    }
    return reply.headers(headers).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(page);
  };

  fastify.get(CONSOLE_PATH, (_request, reply) => sendPage(reply));
  fastify.get(`${CONSOLE_PATH}/assets/:name`, (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (!asset) return reply.code(404).headers(API_HEADERS).type('text/plain; charset=utf-8').send('Not found');
    return reply.headers(headers).header('Cache-Control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body);
  });
  fastify.get(`${CONSOLE_PATH}/*`, (_request, reply) => sendPage(reply));
}
