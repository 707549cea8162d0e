import { ApiProperty } from '@nestjs/swagger';

export class QueueDepthDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 2 })
  numTeams: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  teamSize: number;

  /** SEARCHING tickets of this shape that have not expired. */
  @ApiProperty({ type: 'integer', minimum: 1, example: 12 })
  tickets: number;
}

/** The matchmaking queue at a glance; the figures past `searching` are for admins only. */
export class QueueStatsDto {
  /** SEARCHING tickets by numTeams and teamSize (shapes with none are left out). */
  @ApiProperty({ type: [QueueDepthDto] })
  searching: QueueDepthDto[];

  /** Admins: how far back the figures below look. */
  @ApiProperty({ type: 'integer', required: false, example: 600 })
  windowSeconds?: number;

  /** Admins: tickets matched in the window. */
  @ApiProperty({ type: 'integer', minimum: 0, required: false, example: 40 })
  matchedTickets?: number;

  /** Admins: the median time from a ticket's creation to its match, in the window; null without matches. */
  @ApiProperty({ type: 'number', nullable: true, required: false, example: 3.2 })
  medianWaitSeconds?: number | null;

  /** Admins: the 95th percentile of that wait. */
  @ApiProperty({ type: 'number', nullable: true, required: false, example: 11.8 })
  p95WaitSeconds?: number | null;

  /** Admins: sessions that received matched tickets (new or backfilled), per minute over the window. */
  @ApiProperty({ type: 'number', minimum: 0, required: false, example: 2 })
  matchesPerMinute?: number;
}
