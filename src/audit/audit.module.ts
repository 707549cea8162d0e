import { Global, Module } from '@nestjs/common';
import { AdminAuditController } from './admin-audit.controller.js';
import { AdminAuditRepository } from './admin-audit.repository.js';
import { AdminAuditService } from './admin-audit.service.js';

/**
 * The admin audit: recorded for every admin write by the interceptor the write routes' decorators attach
 * (src/audit/audited-routes.ts), read at /admin/audit. Global, because that interceptor is built in the
 * module of each controller it is on and needs the repository there.
 */
@Global()
@Module({
  controllers: [AdminAuditController],
  providers: [AdminAuditRepository, AdminAuditService],
  exports: [AdminAuditRepository],
})
export class AuditModule {}
