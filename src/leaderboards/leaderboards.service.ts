import { HttpStatus, Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, badRequest, conflict, type ErrorDetail, ErrorCode, notFound } from '../common/errors.js';
import { type WritableFields, writableFields } from '../common/record.dto.js';
import { RecordService } from '../database/record.service.js';
import { withRetry } from '../common/retry.js';
import { ItemsRepository } from '../items/items.repository.js';
import type { CreateLeaderboardDto } from './dto/create-leaderboard.dto.js';
import type { UpdateLeaderboardDto } from './dto/update-leaderboard.dto.js';
import type { Leaderboard } from './leaderboard.entity.js';
import { LeaderboardPayoutsRepository, type PaidPrize } from './leaderboard-payouts.repository.js';
import { LeaderboardPeriodsRepository } from './leaderboard-periods.repository.js';
import { LeaderboardsRepository } from './leaderboards.repository.js';
import { periodAt, scheduleProblem } from './rules/periods.js';
import { parseInt64 } from './rules/scores.js';

/** The settings that decide what a stored score means or which period it belongs to: fixed at creation. */
export const IMMUTABLE_SETTINGS = [
  'sortOrder',
  'operator',
  'subscoreSortOrder',
  'subscoreOperator',
  'resetSchedule',
  'startAt',
  'endAt',
  'duration',
  'entrant',
] as const;

/** Boards: admins write them (the controller checks), every signed-in player reads them. */
@Injectable()
export class LeaderboardsService extends RecordService<Leaderboard> {
  constructor(
    private readonly boards: LeaderboardsRepository,
    private readonly items: ItemsRepository,
    private readonly periods: LeaderboardPeriodsRepository,
    private readonly payouts: LeaderboardPayoutsRepository,
  ) {
    super(boards);
  }

  async create(body: CreateLeaderboardDto, caller: Caller): Promise<Leaderboard> {
    const fields = writableFields(body);
    const sortOrder = fields.sortOrder ?? 'DESC';
    const operator = fields.operator ?? 'BEST';
    const board = {
      ...fields,
      sortOrder,
      operator,
      subscoreSortOrder: fields.subscoreSortOrder ?? sortOrder,
      subscoreOperator: fields.subscoreOperator ?? operator,
      // What one player's personas could otherwise take several of: prizes and seats.
      entrant: fields.entrant ?? (fields.rewards?.length || (fields.maxSize ?? null) !== null ? 'USER' : 'PERSONA'),
    };
    await this.check(board);
    return this.boards.insert({ ...this.stored(board), ownerUid: caller.uid });
  }

  /** Merges the fields sent; a fixed setting sent with another value than it has is a 409 naming it. */
  async update(uid: string, fields: WritableFields<UpdateLeaderboardDto>, expectedVersion: number | undefined): Promise<Leaderboard> {
    const current = await this.boards.findOne(uid, undefined);
    const changed = IMMUTABLE_SETTINGS.filter((name) => name in fields && !same(fields[name], current[name]));
    if (changed.length > 0) {
      throw new ApiException(
        HttpStatus.CONFLICT,
        ErrorCode.IMMUTABLE_SETTING,
        `${changed.join(', ')} cannot change once a board exists: they decide what its stored scores mean. Make a new board instead`,
        { errors: changed.map((field) => ({ field, message: 'fixed at creation' })) },
      );
    }
    await this.check({ ...current, ...fields } as unknown as WritableFields<CreateLeaderboardDto>);
    const updated = await this.boards.updateVersioned(uid, this.stored(fields), expectedVersion);
    this.boards.forget(uid);
    return updated;
  }

  /** Deletes the board with its periods, records and unpaid prizes. */
  async remove(uid: string): Promise<void> {
    await this.boards.deleteOne(uid);
    this.boards.forget(uid);
  }

  /**
   * An admin's reset: the period open now ends now, where its schedule would have ended it, so that the
   * worker closes it as any ended period (final ranks, prizes paid, `leaderboard.period_ended`); a new
   * period begins at the same instant, empty, and runs to the schedule's next time (or its duration, or
   * the board's end). On a board without a schedule that is the only way a period ends. The board's
   * row is locked first, so that of two resets at once the second sees the first's new period; with
   * the version read (If-Match), a reset sent twice resets once (409 VERSION_CONFLICT). 409 NOT_ACTIVE
   * before the board's first period and from its end on: there is nothing to reset.
   */
  async reset(uid: string, expectedVersion: number | undefined): Promise<Leaderboard> {
    const reset = await withRetry(() =>
      this.boards.transaction(async (db) => {
        const board = await this.boards.lockOne(db, uid, undefined);
        const now = new Date();
        const window = periodAt(board, now);
        if (!window) {
          throw conflict(ErrorCode.NOT_ACTIVE, `leaderboard ${uid} has no period to reset: it has not begun, or it has ended`);
        }
        // The new period must begin after the one it ends, even within the millisecond the latter began.
        const at = new Date(Math.max(now.getTime(), window.startsAt.getTime() + 1));
        const endsAt = window.endsAt !== null && window.endsAt < at ? window.endsAt : at;
        const updated = await this.boards.updateVersioned(uid, { resetAt: at }, expectedVersion, db);
        await this.periods.endAt(db, uid, window.startsAt, endsAt);
        return updated;
      }),
    );
    this.boards.forget(uid);
    return reset;
  }

  /** The prizes a period of the board pays or paid, in rank order. */
  async prizes(boardUid: string, periodUid: string, skip: number, limit: number): Promise<PaidPrize[]> {
    await this.boards.findOne(boardUid, undefined);
    const period = await this.periods.findOne(periodUid, undefined);
    if (period.leaderboardUid !== boardUid) throw notFound('period of this leaderboard', periodUid);
    return this.payouts.ofPeriod(periodUid, skip, limit);
  }

  /** The rules between fields no decorator states: the schedule, the bounds, the dates, the reward tiers and their items. */
  private async check(board: WritableFields<CreateLeaderboardDto>): Promise<void> {
    const errors: ErrorDetail[] = [];
    if (board.resetSchedule) {
      const problem = scheduleProblem(board.resetSchedule);
      if (problem) errors.push({ field: 'resetSchedule', message: `not a cron schedule: ${problem}` });
    }
    const [min, max] = [board.minScore, board.maxScore].map((value) =>
      value === null || value === undefined ? undefined : parseInt64(value),
    );
    if (min !== undefined && max !== undefined && min > max) errors.push({ field: 'maxScore', message: 'must not be below minScore' });
    const [start, end] = [board.startAt, board.endAt].map((value) => (value ? Date.parse(String(value)) : undefined));
    if (start !== undefined && end !== undefined && end <= start) errors.push({ field: 'endAt', message: 'must be after startAt' });
    const tiers = [...(board.rewards ?? [])].sort((left, right) => left.rankFrom - right.rankFrom);
    tiers.forEach((tier, index) => {
      if (tier.rankTo < tier.rankFrom) errors.push({ field: `rewards.${index}.rankTo`, message: 'must not be below rankFrom' });
      if (index > 0 && tier.rankFrom <= tiers[index - 1].rankTo) errors.push({ field: 'rewards', message: 'tiers overlap' });
      if (new Set(tier.items.map((item) => item.itemUid.toLowerCase())).size !== tier.items.length)
        errors.push({ field: `rewards.${index}.items`, message: 'names an item twice' });
    });
    if (errors.length === 0 && tiers.length > 0) {
      const missing = await this.items.missing([...new Set(tiers.flatMap((tier) => tier.items.map((item) => item.itemUid.toLowerCase())))]);
      for (const uid of missing) errors.push({ field: 'rewards', message: `no item ${uid}` });
    }
    if (errors.length > 0) throw badRequest(errors.map((error) => `${error.field} ${error.message}`).join('; '), errors);
  }

  /** The fields as columns take them: 64-bit bounds as decimal text, item uids in lower case. */
  private stored(fields: WritableFields<CreateLeaderboardDto>): Record<string, unknown> {
    const stored: Record<string, unknown> = { ...fields };
    for (const name of ['minScore', 'maxScore'] as const) {
      if (fields[name] !== undefined) stored[name] = fields[name] === null ? null : parseInt64(fields[name])!.toString();
    }
    if (fields.rewards) {
      stored.rewards = fields.rewards.map(({ rankFrom, rankTo, items }) => ({
        rankFrom,
        rankTo,
        items: items.map(({ itemUid, quantity }) => ({ itemUid: itemUid.toLowerCase(), quantity })),
      }));
    }
    return stored;
  }
}

/** Whether a value sent equals the stored one (dates by instant). */
function same(sent: unknown, stored: unknown): boolean {
  if (stored instanceof Date) return typeof sent === 'string' && Date.parse(sent) === stored.getTime();
  return (sent ?? null) === (stored ?? null);
}
