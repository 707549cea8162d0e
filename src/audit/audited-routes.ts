import {
  applyDecorators,
  Delete as NestDelete,
  Patch as NestPatch,
  Post as NestPost,
  Put as NestPut,
  UseInterceptors,
} from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { AdminAuditInterceptor } from './admin-audit.interceptor.js';
import { WRITES, WRITES_EXTENSION } from './audit.decorators.js';
import { SetMetadata } from '@nestjs/common';

/**
 * The write routes' decorators: Nest's own, with the admin audit's interceptor on the handler. A global
 * interceptor would put every read through Nest's interceptor pipeline too, for nothing (the read
 * scenarios of docs/PERFORMANCE.md paid it); attached here, only writes do. Controllers take `Post`,
 * `Put`, `Patch` and `Delete` from this file (a lint rule refuses Nest's own), and
 * src/audit/audited-routes.spec.ts checks every write route of every controller carries the audit.
 */
const audited = (route: MethodDecorator) => applyDecorators(route, UseInterceptors(AdminAuditInterceptor));

export const Post = (path?: string | string[]) => audited(NestPost(path));
export const Put = (path?: string | string[]) => audited(NestPut(path));
export const Patch = (path?: string | string[]) => audited(NestPatch(path));
export const Delete = (path?: string | string[]) => audited(NestDelete(path));

/**
 * A GET route that changes state (the interface document's join, leave and unlock): the admin audit
 * records it like a POST, and the generated document lists `X-Audit-Reason` on it (src/openapi/).
 */
export const Writes = () =>
  applyDecorators(SetMetadata(WRITES, true), ApiExtension(WRITES_EXTENSION, true), UseInterceptors(AdminAuditInterceptor));
