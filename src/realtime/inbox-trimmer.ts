import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Transaction } from '../database/record.repository.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { afterCommit } from '../database/after-commit.js';
import { BackgroundJobs } from '../metrics/background-jobs.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { NotificationsRepository } from './notifications.repository.js';

/** Between two trims of the inboxes that grew. */
const TRIM_INTERVAL_MS = 5000;
/** Inboxes trimmed by one statement. */
const TRIM_BATCH = 500;

/**
 * Keeps every player's inbox within REALTIME_INBOX_MAX events, so that nobody (a host inviting, a
 * trader offering) can grow someone else's inbox without bound: past it, the oldest events are
 * dropped, and realtime_events_dropped_total counts them. The writes themselves stay as cheap as
 * they were: the outbox notes whose inboxes grew, and each instance trims those it wrote to every few
 * seconds, so an inbox passes the bound by at most what arrives in that time.
 */
@Injectable()
export class InboxTrimmer implements OnApplicationBootstrap {
  private grown = new Set<string>();
  private readonly max: number;

  constructor(
    private readonly inbox: NotificationsRepository,
    private readonly metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() config: AppConfig,
  ) {
    this.max = config.realtime.inboxMaxEvents;
  }

  onApplicationBootstrap(): void {
    this.jobs.schedule({ name: 'inbox-trim', pauseMs: () => TRIM_INTERVAL_MS, run: () => this.trimOnce() });
  }

  /** Events were written to these users' inboxes in `transaction`: they are trimmed once it commits. */
  grew(transaction: Transaction, users: readonly string[]): void {
    afterCommit(transaction, () => {
      for (const user of users) this.grown.add(user);
    });
  }

  /** Trims the inboxes that grew since the last time; answers how many events were dropped. */
  async trimOnce(): Promise<number> {
    const users = [...this.grown];
    this.grown = new Set();
    let dropped = 0;
    for (let start = 0; start < users.length; start += TRIM_BATCH) {
      dropped += await this.inbox.trim(users.slice(start, start + TRIM_BATCH), this.max);
    }
    this.metrics.countEventsDropped(dropped);
    return dropped;
  }
}
