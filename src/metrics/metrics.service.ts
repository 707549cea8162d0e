import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestWindow } from './request-window.js';

/** What a store holds in all: cloud save's objects and the bytes of their values, or media's files and their bytes. */
export interface StoredTotals {
  objects: number;
  bytes: number;
}

/** The stores whose totals are shown (`store` label): cloud save, and uploaded media files. */
export type Store = 'storage' | 'media';

/** How long totals read from the database serve scrapes and the console before they are read again. */
const STORED_TOTALS_MS = 60_000;

/** Prometheus metrics: request counts and latency by route and status, and the process's own figures. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly recent = new RequestWindow();
  /** Requests answered, sockets opened and events sent since start: whether the instance is quiet (memory-compactor.ts). */
  private work = 0;

  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly requestsShed = new Counter({
    name: 'http_requests_shed_total',
    help: 'Requests answered 503 OVERLOADED at once, this instance working on HTTP_REQUESTS_IN_FLIGHT already',
    registers: [this.registry],
  });

  /** Where http_requests_in_flight reads from (security/requests-in-flight.ts registers it). */
  private requestsInFlightSource: (() => number) | undefined;

  private readonly retries = new Counter({
    name: 'db_transaction_retries_total',
    help: 'Database transactions run again after a serialization failure or deadlock, by operation',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  private readonly eventsWritten = new Counter({
    name: 'realtime_events_written_total',
    help: 'Realtime events written to inboxes, by type (one per recipient; counted when written, before the commit)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  private readonly eventsDelivered = new Counter({
    name: 'realtime_events_delivered_total',
    help: 'Realtime events sent over sockets, by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  private readonly deliveryLag = new Histogram({
    name: 'realtime_delivery_lag_seconds',
    help: 'Time from an event being written in its transaction to its sending over a socket',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  private readonly inboxReadFailures = new Counter({
    name: 'realtime_inbox_read_failures_total',
    help: 'Reads of the inboxes of the users woken for their sockets (one statement for all those woken in a turn) that failed and were tried again later (the pool busy past its timeout, the database away)',
    registers: [this.registry],
  });

  private readonly inboxReadUsers = new Histogram({
    name: 'realtime_inbox_read_users',
    help: 'Users whose inboxes one statement read for their sockets (all those woken in one turn, at most a batch)',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers: [this.registry],
  });

  private readonly slowConsumers = new Counter({
    name: 'realtime_slow_consumers_total',
    help: 'Sockets closed with 4413 because their unsent data passed REALTIME_MAX_BUFFER',
    registers: [this.registry],
  });

  /** 1 while REDIS_URL's server answers; 0 while this instance works without it, or without REDIS_URL. */
  readonly redisUp = new Gauge({
    name: 'redis_up',
    help: 'Whether the Redis of REDIS_URL answers this instance (1) or it is working without it (0)',
    registers: [this.registry],
  });

  private readonly redisFallbacks = new Counter({
    name: 'redis_fallbacks_total',
    help: 'Operations done without Redis because it was unreachable, by what fell back (rate_limit: a request counted per instance; realtime: an inbox poll; revocation: a token checked in the database; leaderboard_ranks: ranks answered from the in-process structure)',
    labelNames: ['component'] as const,
    registers: [this.registry],
  });

  countRedisFallback(component: 'rate_limit' | 'realtime' | 'revocation' | 'leaderboard_ranks'): void {
    this.redisFallbacks.inc({ component });
  }

  /** Per read replica: 1 while it answers this instance's checks. */
  readonly replicaUp = new Gauge({
    name: 'replica_up',
    help: 'Whether a read replica of DATABASE_REPLICA_URLS answers this instance (1) or is skipped (0)',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  /** Per read replica: how old the newest commit it may be missing can be (-1: further behind than measured). */
  readonly replicaLag = new Gauge({
    name: 'replica_lag_seconds',
    help: 'How far a read replica is behind the primary, as measured against the primary WAL position (-1: beyond what is measured)',
    labelNames: ['replica'] as const,
    registers: [this.registry],
  });

  private readonly catalogReads = new Counter({
    name: 'catalog_reads_total',
    help: 'Catalog reads (items, assets, achievement definitions, public skill progress), by where they ran',
    labelNames: ['target'] as const,
    registers: [this.registry],
  });

  countCatalogRead(target: 'replica' | 'primary'): void {
    this.catalogReads.inc({ target });
  }

  private readonly openSockets = new Gauge({
    name: 'realtime_open_sockets',
    help: 'Open realtime sockets of this instance',
    registers: [this.registry],
  });

  /** A socket joined the hub: work, like a request (clients send nothing else the server reads). */
  countSocketOpened(): void {
    this.openSockets.inc();
    this.work++;
  }

  countSocketClosed(): void {
    this.openSockets.dec();
  }

  private readonly matches = new Counter({
    name: 'matchmaker_matches_total',
    help: 'Matches made by this instance: new sessions, and open seats of sessions filled (backfill)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly ticketWait = new Histogram({
    name: 'matchmaker_ticket_wait_seconds',
    help: 'Time tickets waited from creation until this instance matched them',
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });

  private readonly ticketsEnded = new Counter({
    name: 'matchmaker_tickets_ended_total',
    help: 'Tickets this instance set INVALID, by reason (EXPIRED, MATCHED_ELSEWHERE)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly membersTimedOut = new Counter({
    name: 'session_members_timed_out_total',
    help: 'Session members removed by this instance after SESSION_MEMBER_TIMEOUT without a sign of life',
    registers: [this.registry],
  });

  private readonly eventsDropped = new Counter({
    name: 'realtime_events_dropped_total',
    help: 'Oldest events this instance dropped from inboxes that passed REALTIME_INBOX_MAX',
    registers: [this.registry],
  });

  readonly leaderboardRankedRecords = new Gauge({
    name: 'leaderboard_ranked_records',
    help: "Ranked records of open periods in this instance's rank structure",
    registers: [this.registry],
  });

  readonly leaderboardPeriodsInDatabase = new Gauge({
    name: 'leaderboard_periods_ranked_from_database',
    help: 'Open periods this instance ranks from PostgreSQL: held in its rank structure they would pass LEADERBOARD_RANKS_IN_MEMORY',
    registers: [this.registry],
  });

  readonly leaderboardRanksInRedis = new Gauge({
    name: 'leaderboard_ranks_in_redis',
    help: 'Whether this instance answers ranks from Redis sorted sets (1) or from its in-process structure (0: no REDIS_URL, or Redis away)',
    registers: [this.registry],
  });

  private readonly leaderboardRebuilds = new Histogram({
    name: 'leaderboard_rank_rebuild_seconds',
    help: 'Rebuilds of the rank structure from PostgreSQL (at start, and after falling behind the log), and how long they took',
    buckets: [0.05, 0.1, 0.5, 1, 2, 5, 10, 30],
    registers: [this.registry],
  });

  private readonly leaderboardPayouts = new Counter({
    name: 'leaderboard_payouts_total',
    help: 'Prizes of closed leaderboard periods this instance paid (PAID) or gave up on (FAILED)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly compactionPauses = new Histogram({
    name: 'memory_compaction_pause_seconds',
    help: 'Compactions of the heap once the instance was quiet (MEMORY_COMPACT_IDLE), and how long each held the main thread',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });

  private readonly compactionFreed = new Counter({
    name: 'memory_compaction_freed_bytes_total',
    help: 'Resident memory given back by the compactions of the heap',
    registers: [this.registry],
  });

  private readonly jobRuns = new Counter({
    name: 'background_job_runs_total',
    help: 'Runs of timers, intervals and background loops (failed ones too), by job',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });

  private readonly jobFailures = new Counter({
    name: 'background_job_failures_total',
    help: 'Runs of timers, intervals and background loops that threw or rejected (logged, then run again), by job',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });

  private readonly openConnections = new Gauge({
    name: 'http_open_connections',
    help: 'Connections (HTTP and WebSocket) this instance holds (HTTP_MAX_CONNECTIONS bounds them)',
    registers: [this.registry],
  });

  private readonly connectionsRefused = new Counter({
    name: 'http_connections_refused_total',
    help: 'Connections closed as soon as they were accepted, by reason (total: HTTP_MAX_CONNECTIONS; address: HTTP_MAX_CONNECTIONS_PER_ADDRESS)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly clientErrors = new Counter({
    name: 'http_client_errors_total',
    help: "Connections Node.js's HTTP parser refused before any route (headers too slow, too large or malformed), by status",
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  private readonly upgradesShed = new Counter({
    name: 'realtime_upgrades_shed_total',
    help: 'Upgrades to /realtime answered 503 at once because REALTIME_UPGRADES_IN_FLIGHT were being decided',
    registers: [this.registry],
  });

  countJobRun(job: string): void {
    this.jobRuns.inc({ job });
  }

  countJobFailure(job: string): void {
    this.jobFailures.inc({ job });
  }

  countConnectionOpened(): void {
    this.openConnections.inc();
  }

  countConnectionClosed(): void {
    this.openConnections.dec();
  }

  countConnectionRefused(reason: 'total' | 'address'): void {
    this.connectionsRefused.inc({ reason });
  }

  countClientError(status: number): void {
    this.clientErrors.inc({ status: String(status) });
  }

  countUpgradeShed(): void {
    this.upgradesShed.inc();
  }

  /** Where each store's totals are read from (the features register it), and the last reading, shared by every caller for a minute. */
  private readonly storedSources = new Map<Store, () => Promise<StoredTotals>>();
  private storedReading: { at: number; totals: Promise<Map<Store, StoredTotals>> } | undefined;

  /** SEARCHING tickets by shape, read from the database at each scrape (the queue is shared by every instance). */
  private queueDepthSource: (() => Promise<Array<{ numTeams: number; teamSize: number; tickets: number }>>) | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const stored = () => this.storedTotals();
    for (const [name, field, help] of [
      [
        'stored_objects',
        'objects',
        'What every instance stores in all, by store: cloud-save objects (storage), uploaded media files (media)',
      ],
      [
        'stored_bytes',
        'bytes',
        'Bytes stored in all, by store: of cloud-save values as the quotas count them (storage), of media files (media)',
      ],
    ] as const) {
      new Gauge({
        name,
        help: `${help}; read from the database at most once a minute`,
        labelNames: ['store'] as const,
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const [store, totals] of await stored()) this.set({ store }, totals[field]);
        },
      });
    }
    const inFlight = () => this.requestsInFlightSource;
    new Gauge({
      name: 'http_requests_in_flight',
      help: 'Requests this instance is working on (body read, answer not ready yet): past HTTP_REQUESTS_IN_FLIGHT, one more is shed',
      registers: [this.registry],
      collect() {
        this.set(inFlight()?.() ?? 0);
      },
    });
    const source = () => this.queueDepthSource;
    new Gauge({
      name: 'matchmaker_searching_tickets',
      help: 'SEARCHING tickets in the shared queue, by numTeams and teamSize',
      labelNames: ['numTeams', 'teamSize'] as const,
      registers: [this.registry],
      async collect() {
        const read = source();
        if (!read) return;
        this.reset();
        // With the database down the scrape still answers, without this gauge's figures.
        const depth = await read().catch(() => []);
        for (const { numTeams, teamSize, tickets } of depth) this.set({ numTeams, teamSize }, tickets);
      },
    });
  }

  /** Where a store's totals are read from (its feature registers it: a sum over a small table, read at most once a minute). */
  readStoredTotalsFrom(store: Store, source: () => Promise<StoredTotals>): void {
    this.storedSources.set(store, source);
  }

  /**
   * What every store holds, as last read (at most a minute ago): for the gauges and the console. A store
   * whose read fails (the database away) is left out rather than failing the scrape.
   */
  storedTotals(): Promise<Map<Store, StoredTotals>> {
    const now = Date.now();
    if (!this.storedReading || now - this.storedReading.at > STORED_TOTALS_MS) {
      const read = async () => {
        const totals = new Map<Store, StoredTotals>();
        for (const [store, source] of this.storedSources) {
          const figures = await source().catch(() => undefined);
          if (figures) totals.set(store, figures);
        }
        return totals;
      };
      this.storedReading = { at: now, totals: read() };
    }
    return this.storedReading.totals;
  }

  /** Where the queue depth gauge reads from (the tickets repository registers it). */
  readQueueDepthFrom(source: () => Promise<Array<{ numTeams: number; teamSize: number; tickets: number }>>): void {
    this.queueDepthSource = source;
  }

  countMatches(kind: 'session' | 'backfill', count: number, waitsSeconds: number[]): void {
    if (count > 0) this.matches.inc({ kind }, count);
    for (const wait of waitsSeconds) this.ticketWait.observe(Math.max(0, wait));
  }

  countTicketsEnded(reason: string, count: number): void {
    if (count > 0) this.ticketsEnded.inc({ reason }, count);
  }

  countMembersTimedOut(count: number): void {
    if (count > 0) this.membersTimedOut.inc(count);
  }

  countEventsDropped(count: number): void {
    if (count > 0) this.eventsDropped.inc(count);
  }

  countEventsWritten(type: string, count: number): void {
    if (count > 0) this.eventsWritten.inc({ type }, count);
  }

  /** An event sent over a socket, `lagSeconds` after it was written. */
  countDelivered(type: string, lagSeconds: number): void {
    this.eventsDelivered.inc({ type });
    this.work++;
    this.deliveryLag.observe(Math.max(0, lagSeconds));
  }

  countInboxReadFailure(): void {
    this.inboxReadFailures.inc();
  }

  countInboxRead(users: number): void {
    this.inboxReadUsers.observe(users);
  }

  /** What http_requests_in_flight reports. */
  readRequestsInFlightFrom(source: () => number): void {
    this.requestsInFlightSource = source;
  }

  countRequestShed(): void {
    this.requestsShed.inc();
  }

  countSlowConsumer(): void {
    this.slowConsumers.inc();
  }

  countLeaderboardRebuild(milliseconds: number, records: number): void {
    this.leaderboardRebuilds.observe(milliseconds / 1000);
    this.leaderboardRankedRecords.set(records);
  }

  countPayout(outcome: 'PAID' | 'FAILED'): void {
    this.leaderboardPayouts.inc({ outcome });
  }

  countRetry(operation: string): void {
    this.retries.inc({ operation });
  }

  /** `route` is the route's pattern (`/items/:id`), never the raw URL: ids would explode the label set. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
    this.recent.count(status);
    this.work++;
  }

  workDone(): number {
    return this.work;
  }

  countCompaction(seconds: number, freedBytes: number): void {
    this.compactionPauses.observe(seconds);
    this.compactionFreed.inc(Math.max(0, freedBytes));
  }

  /** Requests and errors of the last minute on this instance (the console's overview). */
  lastMinute(): ReturnType<RequestWindow['lastMinute']> {
    return this.recent.lastMinute();
  }
}
