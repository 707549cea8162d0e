import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics: request counts and latency by route and status, and the process's own figures. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

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

  /** Open realtime sockets of this instance (the hub sets it). */
  readonly openSockets = new Gauge({
    name: 'realtime_open_sockets',
    help: 'Open realtime sockets of this instance',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  countEventsWritten(type: string, count: number): void {
    if (count > 0) this.eventsWritten.inc({ type }, count);
  }

  /** An event sent over a socket, `lagSeconds` after it was written. */
  countDelivered(type: string, lagSeconds: number): void {
    this.eventsDelivered.inc({ type });
    this.deliveryLag.observe(Math.max(0, lagSeconds));
  }

  countRetry(operation: string): void {
    this.retries.inc({ operation });
  }

  /** `route` is the route's pattern (`/items/:id`), never the raw URL: ids would explode the label set. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }
}
