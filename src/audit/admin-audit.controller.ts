import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors } from '../common/route.decorators.js';
import { AdminAuditService } from './admin-audit.service.js';
import { AUDIT_ID } from './audit-rules.js';
import { AuditListQuery } from './dto/audit-query.js';
import { AdminAuditEntryDto, AdminAuditSummaryDto } from './dto/admin-audit-entry.dto.js';

/** The admin audit: every admin write through the API, whichever client sent it (docs/CONSOLE.md). No route changes it. */
@ApiTags('admin')
@ApiSecurity('jwt')
@ApiErrors(401, [403, 'FORBIDDEN: admins only.'])
@AdminOnly()
@Controller('admin/audit')
export class AdminAuditController {
  constructor(private readonly audit: AdminAuditService) {}

  @ApiOperation({
    summary: 'List admin writes (admins)',
    description:
      'Newest first, without the request and the record before and after (read one entry for those). Every filter given must hold.',
  })
  @ApiOkResponse({ type: [AdminAuditSummaryDto] })
  @ApiErrors(400)
  @Get()
  findAll(@Query() query: AuditListQuery): Promise<AdminAuditSummaryDto[]> {
    return this.audit.list(query);
  }

  @ApiOperation({
    summary: 'Read an admin write (admins)',
    description: 'With the request sent (secrets masked) and the record before and after.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', pattern: AUDIT_ID.source }, description: 'The id of the audit entry.' })
  @ApiOkResponse({ type: AdminAuditEntryDto })
  @ApiErrors(400, 404)
  @Get(':id')
  findOne(@Param('id') id: string): Promise<AdminAuditEntryDto> {
    return this.audit.findOne(id);
  }
}
