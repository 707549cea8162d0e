import { ApiProperty } from '@nestjs/swagger';

/** The figures of the console's overview (the queue is GET /tickets/stats). */
export class AdminStatsDto {
  /** Realtime sockets open on the instance that answered (each instance counts its own). */
  @ApiProperty({ type: 'integer', minimum: 0, example: 1250 })
  socketsOnline: number;

  /** Successful sign-ins in the last 60 seconds, on every instance (from the sign-in audit). */
  @ApiProperty({ type: 'integer', minimum: 0, example: 42 })
  signInsPerMinute: number;

  /** Requests the answering instance answered in the last 60 seconds. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 18000 })
  requestsPerMinute: number;

  /** Of those, answers 400 to 499. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 120 })
  clientErrorsPerMinute: number;

  /** Of those, answers 500 and above. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 0 })
  serverErrorsPerMinute: number;

  /** serverErrorsPerMinute / requestsPerMinute (0 without requests). */
  @ApiProperty({ type: 'number', minimum: 0, maximum: 1, example: 0 })
  errorRate: number;

  /** Cloud-save objects stored, on every instance (read at most a minute ago). */
  @ApiProperty({ type: 'integer', minimum: 0, example: 120000 })
  storageObjects: number;

  /** Bytes of their values, as the quotas count them. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 734003200 })
  storageBytes: number;

  /** Uploaded media files stored (each distinct file once). */
  @ApiProperty({ type: 'integer', minimum: 0, example: 420 })
  mediaFiles: number;

  /** Their bytes. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 52428800 })
  mediaBytes: number;

  @ApiProperty({ type: 'string', format: 'date-time' })
  measuredAt: Date;
}
