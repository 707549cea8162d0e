import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';
import { MemoryCompactor } from './memory-compactor.js';
import { MetricsService } from './metrics.service.js';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, MemoryCompactor],
  exports: [MetricsService],
})
export class MetricsModule {}
