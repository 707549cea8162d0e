import { HttpException, HttpStatus } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

/** Stable, upper-snake error codes (docs/CONTRACT.md section 4). Clients branch on these, never on messages. */
export enum ErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  MALFORMED_JSON = 'MALFORMED_JSON',
  UNAUTHORIZED = 'UNAUTHORIZED',
  FORBIDDEN = 'FORBIDDEN',
  BANNED = 'BANNED',
  NOT_FOUND = 'NOT_FOUND',
  NO_SUCH_ACCOUNT = 'NO_SUCH_ACCOUNT',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  VERSION_CONFLICT = 'VERSION_CONFLICT',
  CONFLICT = 'CONFLICT',
  REFRESH_CONFLICT = 'REFRESH_CONFLICT',
  DUPLICATE = 'DUPLICATE',
  IDENTITY_IN_USE = 'IDENTITY_IN_USE',
  LAST_IDENTITY = 'LAST_IDENTITY',
  ALREADY_QUEUED = 'ALREADY_QUEUED',
  INSUFFICIENT_QUANTITY = 'INSUFFICIENT_QUANTITY',
  QUOTA_EXCEEDED = 'QUOTA_EXCEEDED',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  IMMUTABLE_SETTING = 'IMMUTABLE_SETTING',
  NOT_ACTIVE = 'NOT_ACTIVE',
  NOT_JOINED = 'NOT_JOINED',
  LEADERBOARD_FULL = 'LEADERBOARD_FULL',
  NO_ATTEMPTS_LEFT = 'NO_ATTEMPTS_LEFT',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  DIGEST_MISMATCH = 'DIGEST_MISMATCH',
  RANGE_NOT_SATISFIABLE = 'RANGE_NOT_SATISFIABLE',
  REQUEST_TIMEOUT = 'REQUEST_TIMEOUT',
  DIRECT_UPLOAD_UNAVAILABLE = 'DIRECT_UPLOAD_UNAVAILABLE',
  STORAGE_UNAVAILABLE = 'STORAGE_UNAVAILABLE',
  RATE_LIMITED = 'RATE_LIMITED',
  OVERLOADED = 'OVERLOADED',
  DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE',
  PROVIDER_UNAVAILABLE = 'PROVIDER_UNAVAILABLE',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
}

// The Swagger plugin reads *.dto.ts and *.entity.ts files only: these classes state their schema.
export class ErrorDetail {
  @ApiProperty({ description: 'The field or query parameter at fault, as a path (`stats.0.name`).', example: 'limit' })
  field: string;
  @ApiProperty({ example: 'must not exceed 1000' })
  message: string;
}

/** The storage object an error is about (docs/GUIDE.md, "Cloud save"). */
export class StorageObjectRef {
  @ApiProperty({ example: 'saves' })
  collection: string;
  @ApiProperty({ example: 'slot-1' })
  key: string;
  @ApiProperty({ format: 'uuid' })
  ownerUid: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    required: false,
    description: 'On VERSION_CONFLICT: the version the object has now (null: there is none).',
    example: '9f86d081884c7d659a2feaa0c55ad015',
  })
  currentVersion?: string | null;
}

/** What an owner's storage quota leaves (STORAGE_OBJECTS_PER_OWNER, STORAGE_BYTES_PER_OWNER). */
export class StorageQuotaLeft {
  @ApiProperty({ type: 'integer', description: 'Objects the owner may still add.', example: 3 })
  objects: number;
  @ApiProperty({ type: 'integer', description: 'Bytes of values (their JSON) the owner may still add.', example: 10240 })
  bytes: number;
}

/** The body of every error response. */
export class ErrorBody {
  @ApiProperty({ type: 'integer', description: 'The HTTP status, repeated for clients that only see the body.', example: 400 })
  status: number;
  @ApiProperty({ enum: ErrorCode, enumName: 'ErrorCode', example: ErrorCode.VALIDATION_FAILED })
  code: ErrorCode;
  @ApiProperty({ description: 'What went wrong, for a developer to read.', example: 'limit must not exceed 1000' })
  message: string;
  @ApiProperty({
    description: 'The request id, also sent as the `X-Request-Id` header: quote it when reporting a problem.',
    example: '5d1c8f0e-2b7a-4c39-8e61-9f4a3b2d7c15',
  })
  requestId: string;
  @ApiProperty({ type: [ErrorDetail], required: false, description: 'Field-level details, where there are any.' })
  errors?: ErrorDetail[];
  @ApiProperty({ type: 'integer', required: false, description: 'On VERSION_CONFLICT: the version the record has now.' })
  currentVersion?: number;
  @ApiProperty({ format: 'uuid', required: false, description: 'On INSUFFICIENT_QUANTITY: the FAILED transaction that was stored.' })
  transactionUid?: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    required: false,
    description: 'On BANNED: when the ban ends (null: until an admin lifts it).',
  })
  until?: string | null;
  @ApiProperty({
    format: 'uuid',
    required: false,
    description: "On ALREADY_QUEUED: the caller's own ticket that holds their queue place (left out when it is someone else's).",
  })
  ticketUid?: string;
  @ApiProperty({ format: 'uuid', required: false, description: 'On ALREADY_QUEUED: the user who has no queue place left.' })
  userUid?: string;
  @ApiProperty({
    type: StorageObjectRef,
    required: false,
    description: 'On VERSION_CONFLICT and FORBIDDEN of a storage write or delete: the object at fault.',
  })
  storageObject?: StorageObjectRef;
  @ApiProperty({ type: StorageQuotaLeft, required: false, description: "On QUOTA_EXCEEDED: what the owner's quota leaves." })
  left?: StorageQuotaLeft;
}

/**
 * An error the service raises on purpose; the global filter turns it into an ErrorBody, with a
 * `Retry-After` header when it says when to retry.
 */
export class ApiException extends HttpException {
  constructor(
    status: HttpStatus,
    readonly code: ErrorCode,
    message: string,
    readonly extra: Pick<
      ErrorBody,
      'errors' | 'currentVersion' | 'transactionUid' | 'until' | 'ticketUid' | 'userUid' | 'storageObject' | 'left'
    > = {},
    readonly retryAfterSeconds?: number,
  ) {
    super(message, status);
  }
}

export const badRequest = (message: string, errors?: ErrorDetail[]) =>
  new ApiException(HttpStatus.BAD_REQUEST, ErrorCode.VALIDATION_FAILED, message, errors ? { errors } : {});

/** Unknown and invisible records answer alike, so that ids of other players' records do not leak. */
export const notFound = (what: string, uid: string) =>
  new ApiException(HttpStatus.NOT_FOUND, ErrorCode.NOT_FOUND, `${what} ${uid} not found`);

export const forbidden = (message: string) => new ApiException(HttpStatus.FORBIDDEN, ErrorCode.FORBIDDEN, message);

export const conflict = (code: ErrorCode, message: string) => new ApiException(HttpStatus.CONFLICT, code, message);

export const unauthorized = (message: string) => new ApiException(HttpStatus.UNAUTHORIZED, ErrorCode.UNAUTHORIZED, message);

/** uids that name no user, where a write names users (a session's roster and invitations, a ticket's party). */
export const unknownUsers = (uids: string[], field = 'users') =>
  badRequest(`no user has the uid ${uids.slice(0, 3).join(', ')}${uids.length > 3 ? ` (and ${uids.length - 3} more)` : ''}`, [
    { field, message: 'names a user who does not exist' },
  ]);
