import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth.decorators.js';
import { NoRateLimit } from '../common/rate-limit.decorators.js';
import { MetricsService } from './metrics.service.js';

@ApiTags('operations')
@Public()
// Probes and scrapes are never rate limited: a load balancer must not see a busy instance as dead.
@NoRateLimit()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  /** Prometheus text format. Holds no player data; restrict it at the load balancer if needed. */
  @ApiOperation({ summary: 'Prometheus metrics' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Metrics in the Prometheus text exposition format.', type: String })
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Get()
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
