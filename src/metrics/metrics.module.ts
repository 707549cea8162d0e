import { Global, Module } from '@nestjs/common';
import { BackgroundJobs } from './background-jobs.js';
import { MetricsController } from './metrics.controller.js';
import { MemoryCompactor } from './memory-compactor.js';
import { MetricsService } from './metrics.service.js';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, BackgroundJobs, MemoryCompactor],
  exports: [MetricsService, BackgroundJobs],
})
export class MetricsModule {}
