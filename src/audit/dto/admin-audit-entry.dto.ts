import { ApiProperty } from '@nestjs/swagger';

/** An admin write as the audit list shows it: who, when and what (its detail adds the request and the record before and after). */
export class AdminAuditSummaryDto {
  /** Grows with time: page back with ?before=<id>. */
  @ApiProperty({ pattern: '^[0-9]{1,19}$', example: '1042' })
  id: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  dateCreated: Date;

  @ApiProperty({ format: 'uuid' })
  actorUid: string;

  /** The admin's `provider:subject`, as ADMIN_USERS names them. */
  @ApiProperty({ example: 'idp1:admin' })
  actor: string;

  /** The operation, as the API document names it. */
  @ApiProperty({ example: 'PUT /items/{id}' })
  action: string;

  @ApiProperty({ example: '/items/8f14e45f-ea8b-4c0e-9d4e-0f1e2d3c4b5a' })
  path: string;

  /** The record the route named, if it named one. */
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  targetUid: string | null;

  /** The status answered (the audit holds successful writes only). */
  @ApiProperty({ type: 'integer', example: 200 })
  status: number;

  @ApiProperty({ example: '5d1c8f0e-2b7a-4c39-8e61-9f4a3b2d7c15' })
  requestId: string;

  @ApiProperty({ example: '203.0.113.7' })
  address: string;

  /** Why, as the admin said in `X-Audit-Reason`. */
  @ApiProperty({ type: 'string', nullable: true, example: 'refund for support ticket #812' })
  reason: string | null;
}

export class AdminAuditEntryDto extends AdminAuditSummaryDto {
  /** The body and query sent, passwords and tokens masked. */
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, example: { body: { cost: 250 }, query: {} } })
  request: Record<string, unknown> | null;

  /** The record just before the write (null: created, or no record named). */
  @ApiProperty({
    nullable: true,
    description: 'Any JSON value.',
    example: { uid: '8f14e45f-ea8b-4c0e-9d4e-0f1e2d3c4b5a', cost: 150, version: 2 },
  })
  before: unknown;

  /** The answer the admin received (null: deleted, or no body). */
  @ApiProperty({
    nullable: true,
    description: 'Any JSON value.',
    example: { uid: '8f14e45f-ea8b-4c0e-9d4e-0f1e2d3c4b5a', cost: 250, version: 3 },
  })
  after: unknown;
}
