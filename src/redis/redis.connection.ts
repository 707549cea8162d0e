import { Global, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { MetricsService } from '../metrics/metrics.service.js';

/** How long a Redis command may take before the request goes on without Redis. */
const COMMAND_TIMEOUT_MS = 500;

/**
 * This instance's connection to REDIS_URL, if any. Redis is optional at every moment: commands are
 * never queued while it is away (a request must not wait for it), ioredis reconnects on its own, and
 * whoever uses it falls back when a command fails. Losing and regaining it is logged once each way and
 * shown as `redis_up` in /metrics and in the readiness probe.
 */
@Injectable()
export class RedisConnection implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly client: Redis | undefined;
  private state: 'starting' | 'up' | 'down' = 'starting';

  constructor(
    @InjectConfig() config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    if (!config.redisUrl) return;
    this.client = new Redis(config.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: false,
    });
    this.client.on('ready', () => this.mark(true));
    this.client.on('error', () => this.mark(false));
    this.client.on('close', () => this.mark(false));
  }

  /** Whether Redis is configured and answered lately. */
  get available(): boolean {
    return this.client !== undefined && this.state === 'up' && this.client.status === 'ready';
  }

  /** A command failed: Redis is treated as away until the connection says it is ready again. */
  failed(error: unknown): void {
    if (this.state === 'up') this.logger.warn(`a Redis command failed (${(error as Error).message})`);
    this.mark(false);
  }

  onApplicationShutdown(): void {
    this.client?.disconnect(false);
  }

  private mark(up: boolean): void {
    const state = up ? 'up' : 'down';
    if (state === this.state) return;
    this.state = state;
    this.metrics.redisUp.set(up ? 1 : 0);
    if (up) this.logger.log('Redis is reachable: rate limits are shared between instances, wake-ups travel over it');
    else
      this.logger.warn(
        'Redis is unreachable: until it is back, rate limits are counted by each instance, realtime inboxes are polled and revocations are checked in the database',
      );
  }
}

/** The Redis connection, for every module. */
@Global()
@Module({ providers: [RedisConnection], exports: [RedisConnection] })
export class RedisModule {}
