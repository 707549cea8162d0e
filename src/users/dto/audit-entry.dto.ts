import { ApiProperty } from '@nestjs/swagger';
import { AuditEvent } from '../../auth/auth-audit.repository.js';

export class AuditEntryDto {
  /** Grows with time: page back with ?before=<id>. */
  @ApiProperty({ pattern: '^[0-9]{1,19}$', example: '1042' })
  id: string;

  @ApiProperty({ enum: AuditEvent, enumName: 'AuditEvent', example: AuditEvent.SIGN_IN })
  event: AuditEvent;

  @ApiProperty({ enum: ['success', 'refused'], example: 'success' })
  outcome: 'success' | 'refused';

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  sessionUid: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: '203.0.113.7' })
  address: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  userAgent: string | null;

  /** Why it was refused, which provider, who banned and until when. */
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, example: { provider: 'idp1' } })
  detail: Record<string, unknown> | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  dateCreated: Date;
}
