import { Injectable } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service.js';
import { RealtimeHub } from '../realtime/realtime.hub.js';
import type { AdminStatsDto } from './dto/admin-stats.dto.js';
import { StatsRepository } from './stats.repository.js';

/** The live figures of the console's overview. */
@Injectable()
export class StatsService {
  constructor(
    private readonly metrics: MetricsService,
    private readonly hub: RealtimeHub,
    private readonly stats: StatsRepository,
  ) {}

  async current(): Promise<AdminStatsDto> {
    const { requests, clientErrors, serverErrors } = this.metrics.lastMinute();
    const stored = await this.metrics.storedTotals();
    return {
      socketsOnline: this.hub.size,
      signInsPerMinute: await this.stats.signInsLastMinute(),
      requestsPerMinute: requests,
      clientErrorsPerMinute: clientErrors,
      serverErrorsPerMinute: serverErrors,
      errorRate: requests === 0 ? 0 : serverErrors / requests,
      storageObjects: stored.get('storage')?.objects ?? 0,
      storageBytes: stored.get('storage')?.bytes ?? 0,
      mediaFiles: stored.get('media')?.objects ?? 0,
      mediaBytes: stored.get('media')?.bytes ?? 0,
      measuredAt: new Date(),
    };
  }
}
