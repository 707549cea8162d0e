import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, type Observable } from 'rxjs';
import { badRequest } from './errors.js';

/**
 * The version a write is based on: `version` in the body or `If-Match: "3"` (CONTRACT.md section 3).
 * Undefined means "apply to the current record". Both given and different is a client bug: 400.
 */
export function expectedVersion(bodyVersion: number | undefined, ifMatch: string | undefined): number | undefined {
  const headerVersion = parseIfMatch(ifMatch);
  if (bodyVersion !== undefined && headerVersion !== undefined && bodyVersion !== headerVersion) {
    throw badRequest(`version ${bodyVersion} in the body disagrees with If-Match ${headerVersion}`, [
      { field: 'version', message: 'disagrees with If-Match' },
    ]);
  }
  return bodyVersion ?? headerVersion;
}

function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,10})"?\s*$/.exec(header);
  if (!match || Number(match[1]) > 2_147_483_647) {
    throw badRequest('If-Match must hold a record version, such as "3"', [
      { field: 'If-Match', message: 'not a version' },
    ]);
  }
  return Number(match[1]);
}

/** Sends `ETag: "<version>"` with every single record a route returns. */
@Injectable()
export class ETagInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((body: unknown) => {
        if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
          const version = (body as { version?: unknown }).version;
          if (typeof version === 'number') {
            context.switchToHttp().getResponse<FastifyReply>().header('ETag', `"${version}"`);
          }
        }
        return body;
      }),
    );
  }
}
