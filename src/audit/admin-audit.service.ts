import { Injectable } from '@nestjs/common';
import { badRequest, notFound } from '../common/errors.js';
import { AdminAuditRepository } from './admin-audit.repository.js';
import { AUDIT_ID } from './audit-rules.js';
import type { AuditListQuery } from './dto/audit-query.js';
import type { AdminAuditEntryDto, AdminAuditSummaryDto } from './dto/admin-audit-entry.dto.js';

/** Reading the admin audit (writing it is AdminAuditInterceptor's, and nobody changes it). */
@Injectable()
export class AdminAuditService {
  constructor(private readonly audit: AdminAuditRepository) {}

  list({ limit, before, ...filters }: AuditListQuery): Promise<AdminAuditSummaryDto[]> {
    return this.audit.list({ filters, before, limit });
  }

  async findOne(id: string): Promise<AdminAuditEntryDto> {
    if (!AUDIT_ID.test(id)) throw badRequest('id must be the id of an audit entry (digits)', [{ field: 'id', message: 'must be digits' }]);
    const entry = await this.audit.findOne(id);
    if (!entry) throw notFound('audit entry', id);
    return entry;
  }
}
