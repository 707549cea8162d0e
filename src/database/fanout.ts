import { Global, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { InjectConfig } from '../config/config.module.js';
import { BackgroundJobs, type ScheduledJob } from '../metrics/background-jobs.js';
import { RedisConnection } from '../redis/redis.connection.js';
import type { Transaction } from '../database/record.repository.js';
import { afterCommit } from './after-commit.js';
import { type AppConfig, directDatabaseUrl } from '../config/environment.js';

type Handler = (payload: string) => void;

/** How often the LISTEN connection is asked a trivial query, and how long an answer may take before it is given up. */
const HEARTBEAT_MS = 1000;
const HEARTBEAT_TIMEOUT_MS = 3000;

/**
 * How instances tell each other what just committed: PostgreSQL NOTIFY, sent in the committing
 * transaction, heard by every instance on one LISTEN connection of its own (a pooled connection would
 * be handed to others; through a transaction-pooling PgBouncer, LISTEN hears nothing, hence
 * DATABASE_DIRECT_URL). With REDIS_URL, Redis pub/sub instead, published once the transaction has
 * committed: NOTIFY makes every notifying commit wait on one lock. A Redis message can be lost (a crash
 * between commit and publish, Redis away); what relies on it also reads the database on a timer then
 * (`viaRedis`), which PostgreSQL's transactional NOTIFY never needed. Realtime events wake sockets
 * through it; revocations reach every instance's guard through it. Losing the connection is reported
 * (`onLost`), and so is listening again (`onRestored`), so that whoever relied on it can catch up from
 * the database. A connection that stops answering (a network partition can leave it open but dead) is
 * given up like a lost one.
 */
@Injectable()
export class Fanout implements OnApplicationShutdown {
  private readonly logger = new Logger('Fanout');
  private readonly handlers = new Map<string, Handler[]>();
  private readonly lost: Array<() => void> = [];
  private readonly restored: Array<() => void> = [];
  private client: pg.Client | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  /** When the connection last answered (epoch ms), and since when a heartbeat waits for its answer. */
  private heardAt = 0;
  private waitingSince: number | undefined;
  private heartbeat: ScheduledJob | undefined;

  private subscriber: Redis | undefined;
  private subscribed = false;
  /** listen() has returned: a subscription made from now on restores what listeners missed. */
  private started = false;

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly redis: RedisConnection,
    private readonly jobs: BackgroundJobs,
  ) {}

  /** Whether wake-ups travel over Redis (REDIS_URL): they may be lost, so listeners also poll. */
  get viaRedis(): boolean {
    return this.redis.client !== undefined;
  }

  /** Tells every instance `payload` on `channel` once `transaction` commits (nothing if it rolls back). */
  async announce(transaction: Transaction, channel: string, payload: string): Promise<void> {
    if (this.viaRedis) this.publishAfterCommit(transaction, channel, payload);
    else await transaction.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /**
   * For a statement that announces what it changes as part of itself (no transaction around it): the
   * SQL of a NOTIFY of `payload` (an SQL text expression) on `channel`, or NULL over Redis, where the
   * caller publishes once the statement has returned (publishAfterCommit outside a transaction).
   */
  notifySql(channel: string, payload: string): string {
    return this.viaRedis ? 'NULL' : `pg_notify('${channel}', ${payload})`;
  }

  /** With Redis: publishes once `transaction` commits (a NOTIFY written in SQL needs no help). */
  publishAfterCommit(transaction: Transaction, channel: string, payload: string): void {
    afterCommit(transaction, () => void this.redis.client?.publish(channel, payload).catch((error: unknown) => this.redis.failed(error)));
  }

  /** Calls `handler` with the payload of every NOTIFY on `channel`: register in onModuleInit, before anyone listens. */
  on(channel: string, handler: Handler): void {
    if (this.starting && !this.handlers.has(channel))
      throw new Error(`Fanout.on('${channel}') after listen(): register channels in onModuleInit`);
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  onLost(handler: () => void): void {
    this.lost.push(handler);
  }

  onRestored(handler: () => void): void {
    this.restored.push(handler);
  }

  /** Whether the LISTEN connection is up and answered lately: otherwise notifications may be missed. */
  get current(): boolean {
    if (this.viaRedis) return this.subscribed && this.subscriber?.status === 'ready';
    return this.client !== undefined && Date.now() - this.heardAt < HEARTBEAT_TIMEOUT_MS;
  }

  /** Starts listening (once; later calls wait for the same start). */
  listen(): Promise<void> {
    if (this.viaRedis) return (this.starting ??= this.subscribe());
    this.heartbeat ??= this.jobs.schedule({ name: 'fanout-heartbeat', everyMs: HEARTBEAT_MS, run: () => this.beat() });
    return (this.starting ??= this.connect(0));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.subscriber?.disconnect(false);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /**
   * A subscriber connection of its own (a subscribed Redis connection takes no other command). It
   * subscribes again each time it is ready; until then, and after a loss, `current` is false. The start
   * does not wait for Redis: without it the instance serves, and the listeners poll.
   */
  private async subscribe(): Promise<void> {
    const subscriber = this.redis.client!.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, autoResubscribe: false });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, payload: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(payload);
    });
    subscriber.on('error', () => undefined);
    subscriber.on('close', () => {
      if (!this.subscribed || this.stopping) return;
      this.subscribed = false;
      this.logger.warn('lost the Redis subscription: listening again; meanwhile what it carried is read from the database');
      this.lost.forEach((handler) => handler());
    });
    let firstSubscription: () => void = () => undefined;
    const subscribedOnce = new Promise<void>((resolve) => (firstSubscription = resolve));
    subscriber.on('ready', () => {
      subscriber.subscribe(...this.handlers.keys()).then(
        () => {
          this.subscribed = true;
          firstSubscription();
          if (this.started) this.restored.forEach((handler) => handler());
        },
        () => undefined,
      );
    });
    await Promise.race([subscribedOnce, sleep(2000)]);
    this.started = true;
  }

  private async connect(attempt: number): Promise<void> {
    for (let tries = attempt; !this.stopping; tries++) {
      const client = new pg.Client({ connectionString: directDatabaseUrl(this.config), application_name: 'game-backend fanout' });
      try {
        await client.connect();
        client.on('notification', ({ channel, payload }) => {
          for (const handler of this.handlers.get(channel) ?? []) handler(payload ?? '');
        });
        client.on('error', () => undefined);
        client.once('end', () => this.dropped(client));
        for (const channel of this.handlers.keys()) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
        this.client = client;
        this.heardAt = Date.now();
        this.waitingSince = undefined;
        if (tries > 0) this.restored.forEach((handler) => handler());
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (tries === attempt) this.logger.warn(`cannot LISTEN (${(error as Error).message}): trying again`);
        await sleep(Math.min(100 * 2 ** (tries - attempt), 5000));
      }
    }
  }

  private beat(): void {
    const client = this.client;
    if (!client) return;
    if (this.waitingSince !== undefined) {
      if (Date.now() - this.waitingSince < HEARTBEAT_TIMEOUT_MS) return;
      this.dropped(client);
      void client.end().catch(() => undefined);
      return;
    }
    const since = (this.waitingSince = Date.now());
    client.query('SELECT 1').then(
      () => {
        if (this.client !== client || this.waitingSince !== since) return;
        this.heardAt = Date.now();
        this.waitingSince = undefined;
      },
      () => undefined,
    );
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client || this.stopping) return;
    this.client = undefined;
    this.logger.warn('lost the LISTEN connection: listening again; meanwhile what it carried is read from the database');
    this.lost.forEach((handler) => handler());
    void this.jobs.run('fanout-listen', () => this.connect(1));
  }
}

/** The fan-out between instances, for every module. */
@Global()
@Module({ providers: [Fanout], exports: [Fanout] })
export class FanoutModule {}
