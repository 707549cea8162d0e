import { Global, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { BackgroundJobs } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { SERVICE_TYPES } from './timestamptz.js';

/** How often the primary's WAL position and each replica's replay position are read. */
const CHECK_MS = 500;
/** A replica that does not answer a check or a read this fast is treated as down. */
const REPLICA_TIMEOUT_MS = 2000;

/** Where the primary's WAL stood at a moment (`at`: when the question was sent, so `lsn` holds every commit before it). */
interface WalSample {
  at: number;
  lsn: bigint;
}

interface Replica {
  /** host:port/database, for logs and metrics (no credentials). */
  name: string;
  pool: pg.Pool;
  up: boolean;
  /** Every commit on the primary before this moment has been replayed here (0: unknown). */
  freshAsOf: number;
  checking: boolean;
}

/**
 * Streaming-replication read replicas (DATABASE_REPLICA_URLS) for catalog reads. A replica serves a
 * read only when it is up and has replayed every commit older than REPLICA_MAX_LAG; and, for a table
 * this instance wrote to, every commit up to that write, so that whoever changed the catalog through
 * an instance reads their change back from it. Any failure on a replica is answered by the primary:
 * a client never sees a replica's error.
 *
 * Lag is measured against the primary's WAL position, sampled on a timer: a replica that has
 * replayed past the position sampled at time t holds every commit made before t. A replica's own
 * replay timestamp cannot tell a quiet primary from a stalled replica. TypeORM's replication setting
 * picks a replica at random and knows neither lag nor failure, hence this class.
 */
@Injectable()
export class Replicas implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Replicas');
  private readonly replicas: Replica[];
  private readonly samples: WalSample[] = [];
  /** When this instance last committed a write to each routed table. */
  private readonly writtenAt = new Map<string, number>();
  private next = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.replicas = config.replicas.urls.map((url) => {
      const parsed = new URL(url);
      const pool = new pg.Pool({
        connectionString: url,
        max: 10,
        connectionTimeoutMillis: REPLICA_TIMEOUT_MS,
        query_timeout: REPLICA_TIMEOUT_MS,
        application_name: 'game-backend replica reads',
        types: SERVICE_TYPES,
      });
      // An idle connection dropped by a stopped replica must not bring the process down.
      pool.on('error', () => undefined);
      return { name: `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`, pool, up: false, freshAsOf: 0, checking: false };
    });
  }

  onApplicationBootstrap(): void {
    this.jobs.schedule({
      name: 'replica-check',
      enabled: this.replicas.length > 0,
      everyMs: CHECK_MS,
      firstRunInMs: 0,
      run: () => this.check(),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.replicas.map((replica) => replica.pool.end()));
  }

  /** Records that this instance committed a write to `table` just now (call after the commit). */
  wrote(table: string): void {
    if (this.replicas.length > 0) this.writtenAt.set(table, Date.now());
  }

  /**
   * The rows of a catalog read of `table` from a replica fresh enough; undefined when none may serve
   * it or the one tried failed: the primary answers then.
   */
  async read<R>(table: string, config: pg.QueryConfig): Promise<R[] | undefined> {
    const replica = this.pick(table);
    if (replica) {
      try {
        const { rows } = await replica.pool.query(config);
        this.metrics.countCatalogRead('replica');
        return rows as R[];
      } catch (error) {
        if (isConnectionFailure(error)) this.markDown(replica, error);
      }
    }
    this.metrics.countCatalogRead('primary');
    return undefined;
  }

  /** Round robin over the replicas that may serve a read of `table` now. */
  private pick(table: string): Replica | undefined {
    if (this.replicas.length === 0) return undefined;
    const now = Date.now();
    const needed = Math.max(now - this.config.replicas.maxLagMs, this.writtenAt.get(table) ?? 0);
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.next++ % this.replicas.length];
      if (replica.up && replica.freshAsOf > needed) return replica;
    }
    return undefined;
  }

  private async check(): Promise<void> {
    const at = Date.now();
    try {
      const [row] = await this.dataSource.query<Array<{ lsn: string }>>('SELECT pg_current_wal_lsn()::text AS lsn');
      this.samples.push({ at, lsn: parseLsn(row.lsn) });
    } catch {
      // The primary is away: nothing to compare with; replicas keep their last standing.
      return;
    }
    // Kept for twice the largest lag worth telling apart; older samples only say "too far behind".
    const horizon = at - 2 * this.config.replicas.maxLagMs - CHECK_MS;
    while (this.samples.length > 1 && this.samples[0].at < horizon) this.samples.shift();
    // Not awaited: a replica that takes its timeout to answer must not hold back the next sample of the
    // primary (the scheduler starts no run while one goes), which the other replicas' freshness comes from.
    for (const replica of this.replicas) void this.checkReplica(replica);
  }

  private async checkReplica(replica: Replica): Promise<void> {
    if (replica.checking) return;
    replica.checking = true;
    try {
      const { rows } = await replica.pool.query<{ lsn: string }>(
        'SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn',
      );
      const replayed = parseLsn(rows[0].lsn);
      let freshAsOf = 0;
      for (const sample of this.samples) if (sample.lsn <= replayed) freshAsOf = sample.at;
      replica.freshAsOf = freshAsOf;
      this.metrics.replicaLag.set({ replica: replica.name }, freshAsOf === 0 ? -1 : (Date.now() - freshAsOf) / 1000);
      if (!replica.up) {
        replica.up = true;
        this.metrics.replicaUp.set({ replica: replica.name }, 1);
        this.logger.log(`replica ${replica.name} answers: catalog reads go to it while it keeps up`);
      }
    } catch (error) {
      this.markDown(replica, error);
    } finally {
      replica.checking = false;
    }
  }

  private markDown(replica: Replica, error: unknown): void {
    this.metrics.replicaUp.set({ replica: replica.name }, 0);
    if (!replica.up) return;
    replica.up = false;
    this.logger.warn(`replica ${replica.name} is unreachable (${(error as Error).message}): its reads go to the primary`);
  }
}

/** A WAL position ("16/B374D848") as a number. */
function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/**
 * Whether a replica's error means the replica cannot serve (connection refused or lost, a timeout, a
 * shutdown), rather than the statement failing, as it would on the primary too.
 */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300';
}

/** The read replicas, for every module. */
@Global()
@Module({ providers: [Replicas], exports: [Replicas] })
export class ReplicasModule {}
