import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordRepository } from '../database/record.repository.js';
import { Leaderboard } from './leaderboard.entity.js';

/** How long an instance serves a board's settings from memory: submissions read them on every write. */
const CACHE_MS = 1000;

@Injectable()
export class LeaderboardsRepository extends RecordRepository<Leaderboard> {
  private readonly cache = new Map<string, { board: Leaderboard; until: number }>();

  constructor(dataSource: DataSource) {
    super(dataSource, Leaderboard, 'leaderboard');
  }

  /**
   * The board, from this instance's memory when it read it less than a second ago. The settings that
   * decide a record's arithmetic never change; the others (maxNumScore, authoritative, ...) reach
   * every instance within that second.
   */
  async cached(uid: string): Promise<Leaderboard> {
    const now = Date.now();
    const known = this.cache.get(uid);
    if (known && known.until > now) return known.board;
    const board = await this.findOne(uid, undefined);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(uid, { board, until: now + CACHE_MS });
    return board;
  }

  /** Forgets a board this instance changed or deleted. */
  forget(uid: string): void {
    this.cache.delete(uid);
  }
}
