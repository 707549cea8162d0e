import { applyDecorators, type CanActivate, type ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AuthenticatedRequest, Caller } from './auth.decorators.js';
import { forbidden } from './errors.js';

/**
 * Who may do what. Every permission rule of the service is a function in its resource's *.policy.ts
 * (the shared ones below): it takes the caller (undefined: anonymous) and whatever the decision needs,
 * and throws the 401 or 403 to answer, or returns. A rule that needs only the caller is declared on
 * its route with @Authorize(rule) and runs before the body is read; a rule that needs a record runs in
 * the service, on the record it has read (and locked). What a caller may *see* is not a rule: each
 * repository's `scope` restricts its queries, so that an invisible record is a 404 like an unknown one.
 */
export type CallerRule = (caller: Caller | undefined) => void;

const CALLER_RULE = 'policy:caller-rule';

/** Runs `rule` on the caller before the route (after the global JwtGuard has read the token). */
export const Authorize = (rule: CallerRule) => applyDecorators(SetMetadata(CALLER_RULE, rule), UseGuards(PolicyGuard));

@Injectable()
export class PolicyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const rule = this.reflector.getAllAndOverride<CallerRule | undefined>(CALLER_RULE, [context.getHandler(), context.getClass()]);
    rule?.(context.switchToHttp().getRequest<AuthenticatedRequest>().caller);
    return true;
  }
}

/** Catalog writes and truncates. */
export function requireAdmin(caller: Caller | undefined): void {
  if (!caller?.isAdmin) throw forbidden('only admins may do this');
}

export const AdminOnly = () => Authorize(requireAdmin);

/** Records with a host (sessions, tickets) are changed by their host or an admin. */
export function requireHostOrAdmin(caller: Caller, record: { hostUid: string }, what: string): void {
  if (!caller.isAdmin && record.hostUid !== caller.uid) throw forbidden(`only the host or an admin may change this ${what}`);
}
