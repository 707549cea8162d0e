import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AdminAuditController } from './admin-audit.controller.js';
import { AdminAuditInterceptor } from './admin-audit.interceptor.js';
import { AdminAuditRepository } from './admin-audit.repository.js';
import { AdminAuditService } from './admin-audit.service.js';

/** The admin audit: recorded for every admin write by a global interceptor, read at /admin/audit. */
@Module({
  controllers: [AdminAuditController],
  providers: [AdminAuditRepository, AdminAuditService, { provide: APP_INTERCEPTOR, useClass: AdminAuditInterceptor }],
})
export class AuditModule {}
