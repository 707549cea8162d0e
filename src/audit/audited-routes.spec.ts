import { readdirSync } from 'node:fs';
import { RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { AdminAuditInterceptor } from './admin-audit.interceptor.js';
import { WRITES } from './audit.decorators.js';
import { isWrite } from './audit-rules.js';

/** Every route handler of every controller in src/, with its HTTP method and whether it carries the audit. */
async function routes(): Promise<{ route: string; method: string; writes: boolean; audited: boolean }[]> {
  const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.controller.ts'));
  const found = [];
  for (const file of files) {
    const exports = (await import(`../${file.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
    for (const controller of Object.values(exports)) {
      if (typeof controller !== 'function' || Reflect.getMetadata(PATH_METADATA, controller) === undefined) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? []) as unknown[];
        found.push({
          route: `${controller.name}.${name}`,
          method,
          writes: isWrite(method, Reflect.getMetadata(WRITES, handler) === true),
          audited: interceptors.includes(AdminAuditInterceptor),
        });
      }
    }
  }
  return found;
}

describe('the admin audit on routes', () => {
  it('is on every write route (every method but GET and HEAD, and GETs marked @Writes()) and on no read', async () => {
    const all = await routes();
    expect(all.length).toBeGreaterThan(100);
    expect(all.filter((route) => route.writes).length).toBeGreaterThan(60);
    expect(all.filter((route) => route.writes !== route.audited)).toEqual([]);
  });
});
