import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../common/auth.decorators.js';
import { NoRateLimit } from '../common/rate-limit.decorators.js';
import { ApiException, ErrorCode } from '../common/errors.js';
import { ApiErrors } from '../common/route.decorators.js';
import { RedisConnection } from '../redis/redis.connection.js';

export class HealthDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: string;
}

export class ReadinessDto {
  /** `degraded`: serving, without an optional dependency (see `redis`). */
  @ApiProperty({ enum: ['ok', 'degraded'], example: 'ok' })
  status: 'ok' | 'degraded';

  /** Only with REDIS_URL: `down` while its server is unreachable (rate limits are then per instance). */
  @ApiProperty({ enum: ['up', 'down'], required: false, example: 'up' })
  redis?: 'up' | 'down';
}

@ApiTags('operations')
@Public()
// Probes and scrapes are never rate limited: a load balancer must not see a busy instance as dead.
@NoRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisConnection,
  ) {}

  /** Liveness: the process answers. It does not touch the database, so an outage does not get it restarted. */
  @ApiOperation({ summary: 'Liveness probe' })
  @ApiOkResponse({ type: HealthDto })
  @Get()
  live(): HealthDto {
    return { status: 'ok' };
  }

  /**
   * Readiness: the database answers within 3 s. A load balancer should stop sending traffic on 503.
   * Redis is optional: without it the instance still serves (200, `degraded`).
   */
  @ApiOperation({ summary: 'Readiness probe (database reachable; Redis, if configured, reported)' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiErrors([503, 'DATABASE_UNAVAILABLE: the database did not answer.'])
  @Get('ready')
  async ready(): Promise<ReadinessDto> {
    try {
      await this.health.check([() => this.database.pingCheck('database', { timeout: 3000 })]);
    } catch {
      throw new ApiException(503, ErrorCode.DATABASE_UNAVAILABLE, 'not ready: the database is unreachable');
    }
    if (!this.redis.client) return { status: 'ok' };
    return this.redis.available ? { status: 'ok', redis: 'up' } : { status: 'degraded', redis: 'down' };
  }
}
