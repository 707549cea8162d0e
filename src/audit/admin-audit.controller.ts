import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors } from '../common/route.decorators.js';
import { AdminAuditService } from './admin-audit.service.js';
import { AUDIT_ID, DEFAULT_AUDIT_PAGE, MAX_ACTION_FILTER, MAX_AUDIT_PAGE } from './audit-rules.js';
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
  @ApiQuery({ name: 'actorUid', required: false, schema: { type: 'string', format: 'uuid' }, description: "The admin's uid." })
  @ApiQuery({ name: 'targetUid', required: false, schema: { type: 'string', format: 'uuid' }, description: 'The record the route named.' })
  @ApiQuery({
    name: 'action',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: MAX_ACTION_FILTER, example: 'PUT /items' },
    description: 'Part of the operation, any case.',
  })
  @ApiQuery({
    name: 'since',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    description: 'Entries at or after this time.',
  })
  @ApiQuery({ name: 'until', required: false, schema: { type: 'string', format: 'date-time' }, description: 'Entries before this time.' })
  @ApiQuery({
    name: 'before',
    required: false,
    schema: { type: 'string', pattern: AUDIT_ID.source },
    description: 'Entries older than this id.',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_AUDIT_PAGE, default: DEFAULT_AUDIT_PAGE },
  })
  @ApiOkResponse({ type: [AdminAuditSummaryDto] })
  @ApiErrors(400)
  @Get()
  findAll(@Query() query: Record<string, unknown>): Promise<AdminAuditSummaryDto[]> {
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
