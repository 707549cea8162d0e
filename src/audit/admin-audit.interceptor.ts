import { type CallHandler, type ExecutionContext, HttpStatus, Injectable, type NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { ModuleRef, Reflector } from '@nestjs/core';
import { from, mergeMap, type Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../common/auth.decorators.js';
import { badRequest } from '../common/errors.js';
import { AdminAuditRepository } from './admin-audit.repository.js';
import { AUDITED_RECORD, type RecordReader } from './audit.decorators.js';
import { auditableBody, auditableJsonText, maskSecrets, readAuditReason } from './audit-rules.js';

export const AUDIT_REASON_HEADER = 'X-Audit-Reason';

/**
 * Records every admin write that succeeds, whichever client sent it, in the admin audit: who, when,
 * what, the record before (read just before the write through the controller's @AuditedRecord service)
 * and after (the answer). The entry is written before the answer leaves, so an admin who has seen
 * their 2xx can find it. A refused write changed nothing and is not recorded. It runs on write routes
 * only: their decorators put it there (audited-routes.ts).
 */
@Injectable()
export class AdminAuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly audit: AdminAuditRepository,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // Checked for every caller, as the document states it: a player's reason is not kept, but a client
    // that sends a bad one learns so before it reaches an admin's hands.
    const reason = readAuditReason(request.headers[AUDIT_REASON_HEADER.toLowerCase()]);
    if ('problem' in reason) {
      throw badRequest(`${AUDIT_REASON_HEADER} ${reason.problem}`, [{ field: AUDIT_REASON_HEADER, message: reason.problem }]);
    }
    const caller = request.caller;
    if (!caller?.isAdmin) return next.handle();
    const params = request.params as Record<string, string | undefined>;
    const targetUid = params.id !== undefined && /^[0-9a-f-]{36}$/i.test(params.id) ? params.id.toLowerCase() : null;
    const before = targetUid ? await this.readBefore(context, targetUid, caller) : null;
    const status =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
      (request.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    const body =
      request.body === undefined && Object.keys(request.query as object).length === 0
        ? null
        : { body: auditableBody(request.body), query: request.query };

    return next.handle().pipe(
      mergeMap((answer: unknown) =>
        from(
          this.audit
            .record({
              actorUid: caller.uid,
              action: `${request.method} ${openApiPath(request.routeOptions.url ?? request.url)}`,
              path: request.url.split('?')[0],
              targetUid,
              status,
              requestId: String(request.id),
              address: request.ip,
              reason: reason.reason,
              request: body === null ? null : auditableJsonText(maskSecrets(body)),
              before,
              after: auditableJsonText(answer),
            })
            .then(() => answer),
        ),
      ),
    );
  }

  /** The record as the controller's reader answers it now, as JSON text; null when there is none (or it is not visible). */
  private async readBefore(
    context: ExecutionContext,
    uid: string,
    caller: NonNullable<AuthenticatedRequest['caller']>,
  ): Promise<string | null> {
    const readerType = this.reflector.get<RecordReader['constructor'] | undefined>(AUDITED_RECORD, context.getClass());
    if (!readerType) return null;
    const reader = this.moduleRef.get<RecordReader>(readerType, { strict: false });
    try {
      return auditableJsonText(await reader.findOne(uid, caller));
    } catch {
      // Unknown or already gone: the write itself answers 404 if it matters.
      return null;
    }
  }
}

/** `/items/:id` as the API document writes it, `/items/{id}`. */
function openApiPath(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
