import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../common/auth.decorators.js';
import { NoRateLimit } from '../security/rate-limit.decorators.js';
import { ApiException, ErrorCode } from '../common/errors.js';
import { ApiErrors } from '../common/route.decorators.js';

export class HealthDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: string;
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
  ) {}

  /** Liveness: the process answers. It does not touch the database, so an outage does not get it restarted. */
  @ApiOperation({ summary: 'Liveness probe' })
  @ApiOkResponse({ type: HealthDto })
  @Get()
  live(): HealthDto {
    return { status: 'ok' };
  }

  /** Readiness: the database answers within 3 s. A load balancer should stop sending traffic on 503. */
  @ApiOperation({ summary: 'Readiness probe (database reachable)' })
  @ApiOkResponse({ type: HealthDto })
  @ApiErrors([503, 'DATABASE_UNAVAILABLE: the database did not answer.'])
  @Get('ready')
  async ready(): Promise<HealthDto> {
    try {
      await this.health.check([() => this.database.pingCheck('database', { timeout: 3000 })]);
      return { status: 'ok' };
    } catch {
      throw new ApiException(503, ErrorCode.DATABASE_UNAVAILABLE, 'not ready: the database is unreachable');
    }
  }
}
