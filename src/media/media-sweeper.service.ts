import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig, MediaConfig } from '../config/environment.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { BackgroundJobs, NOT_STOPPING } from '../metrics/background-jobs.js';
import { MediaBlobsRepository } from './media-blobs.repository.js';
import { MediaStore } from './media-store.js';
import { MediaUploadsRepository } from './media-uploads.repository.js';

/** Blobs one sweep checks against the database at once. */
const BATCH = 500;

/** What one sweep removed. */
export interface SweepReport {
  /** Direct uploads past their expiry, with what the client sent. */
  expiredUploads: number;
  /** Blobs no variant referred to, with their rows. */
  unreferencedBlobs: number;
  /** Blobs the store held without a row (an upload that crashed between placing its file and committing). */
  orphanBlobs: number;
  /** Temporary files of uploads interrupted more than MEDIA_UPLOAD_TTL ago. */
  staleTemporaries: number;
}

/**
 * Keeps the media store to what the catalog refers to. Every instance may sweep (MEDIA_SWEEP_INTERVAL);
 * a blob is deleted only under its digest's lock, in the transaction that deletes its row, after
 * checking that no variant refers to it: an upload of the same bytes racing the sweep either waits
 * for the deletion and stores the bytes again, or holds the lock first and the sweep passes over them.
 */
@Injectable()
export class MediaSweeper implements OnApplicationBootstrap {
  private readonly logger = new Logger('MediaSweeper');
  private readonly media: MediaConfig;

  constructor(
    private readonly store: MediaStore,
    private readonly blobs: MediaBlobsRepository,
    private readonly uploads: MediaUploadsRepository,
    metrics: MetricsService,
    private readonly jobs: BackgroundJobs,
    @InjectConfig() config: AppConfig,
  ) {
    this.media = config.media;
    metrics.readStoredTotalsFrom('media', () => blobs.totals());
  }

  onApplicationBootstrap(): void {
    this.jobs.schedule({
      name: 'media-sweep',
      enabled: this.media.sweepIntervalSeconds > 0,
      pauseMs: () => this.media.sweepIntervalSeconds * 1000,
      run: (stopping) => this.sweepOnce(stopping),
    });
  }

  /** One sweep; `stopping` (the instance shutting down) ends it between two removals. */
  async sweepOnce(stopping: AbortSignal = NOT_STOPPING): Promise<SweepReport> {
    const report: SweepReport = {
      expiredUploads: await this.sweepExpiredUploads(stopping),
      unreferencedBlobs: await this.sweepUnreferenced(stopping),
      orphanBlobs: await this.sweepOrphans(stopping),
      staleTemporaries: await this.sweepTemporaries(stopping),
    };
    if (Object.values(report).some((count) => count > 0)) this.logger.log({ ...report }, 'media store swept');
    return report;
  }

  private async sweepExpiredUploads(stopping: AbortSignal): Promise<number> {
    let removed = 0;
    while (!stopping.aborted) {
      const expired = await this.uploads.transaction(async (transaction) => {
        const upload = await this.uploads.claimExpired(transaction);
        if (!upload) return false;
        if (this.store.direct) await this.store.discard(this.store.direct.keyOf(upload.uid));
        await this.uploads.remove(transaction, upload.uid);
        return true;
      });
      if (!expired) break;
      removed += 1;
    }
    return removed;
  }

  private async sweepUnreferenced(stopping: AbortSignal): Promise<number> {
    let removed = 0;
    // Digests being uploaded right now are passed over (their lock is held): a bounded number of rounds.
    for (let round = 0; round < 100 && !stopping.aborted; round++) {
      const candidates = await this.blobs.unreferenced(BATCH);
      let removedThisRound = 0;
      for (const sha256 of candidates) if (await this.removeBlob(sha256, 'unreferenced')) removedThisRound += 1;
      removed += removedThisRound;
      if (candidates.length < BATCH || removedThisRound === 0) break;
    }
    return removed;
  }

  private async sweepOrphans(stopping: AbortSignal): Promise<number> {
    let removed = 0;
    let batch: string[] = [];
    const check = async () => {
      const recorded = await this.blobs.recorded(batch);
      for (const sha256 of batch) if (!recorded.has(sha256) && (await this.removeBlob(sha256, 'orphan'))) removed += 1;
      batch = [];
    };
    for await (const sha256 of this.store.blobs()) {
      if (stopping.aborted) break;
      batch.push(sha256);
      if (batch.length === BATCH) await check();
    }
    if (batch.length > 0) await check();
    return removed;
  }

  /**
   * Deletes a blob under its digest's lock, if it is still what the sweep found: a row no variant
   * refers to ('unreferenced'), or no row at all ('orphan'). The row goes first, in the transaction:
   * were the file deleted and the commit lost, a row would name bytes that are gone.
   */
  private removeBlob(sha256: string, kind: 'unreferenced' | 'orphan'): Promise<boolean> {
    return this.blobs.transaction(async (transaction) => {
      if (!(await this.blobs.tryLockDigest(transaction, sha256))) return false;
      const removable =
        kind === 'unreferenced'
          ? await this.blobs.forgetIfUnreferenced(transaction, sha256)
          : !(await this.blobs.recorded([sha256], transaction)).has(sha256);
      if (removable) await this.store.remove(sha256);
      return removable;
    });
  }

  private async sweepTemporaries(stopping: AbortSignal): Promise<number> {
    let removed = 0;
    for await (const key of this.store.staleTemporaries(new Date(Date.now() - this.media.uploadTtlSeconds * 1000))) {
      if (stopping.aborted) break;
      await this.store.discard(key);
      removed += 1;
    }
    return removed;
  }
}
