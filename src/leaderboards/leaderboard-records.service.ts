import { HttpStatus, Injectable } from '@nestjs/common';
import { AuditEvent, AuthAuditRepository } from '../auth/auth-audit.repository.js';
import type { ClientInfo } from '../auth/sign-in-sessions/sign-in-sessions.repository.js';
import type { Caller } from '../common/auth.decorators.js';
import { ApiException, badRequest, ErrorCode, notFound } from '../common/errors.js';
import { markCut } from '../common/page.js';
import type { Transaction } from '../database/record.repository.js';
import { withRetry } from '../common/retry.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { PersonasRepository } from '../personas/personas.repository.js';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import type { JoinLeaderboardDto, SubmitScoreDto } from './dto/submit-score.dto.js';
import type { LeaderboardRecordView, PersonaLeaderboardRecordView } from './dto/leaderboard-record.dto.js';
import type { Leaderboard } from './leaderboard.entity.js';
import type { LeaderboardPeriod } from './leaderboard-period.entity.js';
import type { LeaderboardRecord } from './leaderboard-record.entity.js';
import { LeaderboardPeriodsRepository } from './leaderboard-periods.repository.js';
import { LeaderboardRanksRepository } from './ranks/leaderboard-ranks.repository.js';
import { LeaderboardRecordsRepository, noAttemptsLeft, type Standing, type Submitted } from './leaderboard-records.repository.js';
import { LeaderboardsRepository } from './leaderboards.repository.js';
import { requireMaySubmit, requireOwnPersona } from './leaderboards.policy.js';
import { entryOfKey, personaOfKey } from './rules/operators.js';
import { decodeCursor, encodeCursor, type PageCursor } from './rules/page-cursor.js';
import { SignedCursors } from '../common/signed-cursors.js';
import { isOpen, periodAt } from './rules/periods.js';
import { appliedAt, pageAtMoment, RankIndex, standingBeforeWrite } from './ranks/rank-index.js';
import { int64Json, parseInt64 } from './rules/scores.js';

type Named = LeaderboardRecord & { personaName: string };

/** A page of records, and where the next starts (none: the last page). */
export interface RecordPage {
  records: LeaderboardRecordView[];
  nextCursor: string | undefined;
}

/** Which period a read asks for: `current` (default), `previous`, or a period's uid. */
export type PeriodChoice = string;

/**
 * Scores, joins and reads of a board's records: the game's rules (who may submit, which period takes
 * the score, the operators, attempts and seats), ranks from the rank index (RankIndex) for open
 * periods and the final ranks stored in PostgreSQL for closed ones.
 */
@Injectable()
export class LeaderboardRecordsService {
  private readonly periodUids = new Map<string, { uid: string; status: string }>();
  private readonly cursorLifeMs: number;

  constructor(
    private readonly boards: LeaderboardsRepository,
    private readonly periods: LeaderboardPeriodsRepository,
    private readonly records: LeaderboardRecordsRepository,
    private readonly log: LeaderboardRanksRepository,
    private readonly personas: PersonasRepository,
    private readonly ranks: RankIndex,
    private readonly audit: AuthAuditRepository,
    private readonly metrics: MetricsService,
    private readonly cursors: SignedCursors,
    @InjectConfig() config: AppConfig,
  ) {
    // A cursor is honoured while the log still holds every change since its moment (with a margin).
    this.cursorLifeMs = config.leaderboards.logRetentionSeconds * 900;
  }

  /**
   * Applies a score to the caller's persona's record in the period open now, and answers the record
   * with its rank. 403 on an authoritative board for players and for another player's persona; 409
   * outside the board's periods (NOT_ACTIVE), when the persona must join first (NOT_JOINED), has no
   * attempt left (NO_ATTEMPTS_LEFT) or the period is full (LEADERBOARD_FULL), and on a board whose
   * entrant is USER when another persona of the owner entered the period (ALREADY_ENTERED); 400 for a score outside
   * the board's bounds or past 64 bits.
   */
  async submit(boardUid: string, body: SubmitScoreDto, caller: Caller): Promise<LeaderboardRecordView> {
    const board = await this.boards.cached(boardUid);
    requireMaySubmit(caller, board);
    const persona = await this.actingPersona(caller, body.personaUid);
    const score = parseInt64(body.score)!;
    const subscore = body.subscore === undefined ? 0n : parseInt64(body.subscore)!;
    const [min, max] = [board.minScore, board.maxScore].map((bound) => (bound === null ? undefined : BigInt(bound)));
    if ((min !== undefined && score < min) || (max !== undefined && score > max)) {
      throw badRequest(`score must be from ${board.minScore ?? '-2^63'} to ${board.maxScore ?? '2^63 - 1'} on this board`, [
        { field: 'score', message: "outside the board's bounds" },
      ]);
    }
    const period = await this.openPeriod(board);
    const mustExist = board.joinRequired || board.maxSize !== null;
    const outcome = await withRetry(
      () =>
        this.records.transaction(async (db) => {
          if (board.maxSize !== null && !board.joinRequired) {
            const seat = await this.records.join(db, {
              board: board.uid,
              period,
              persona: persona.uid,
              user: persona.owner,
              maxSize: board.maxSize,
              perUser: board.entrant === 'USER',
            });
            if (seat === 'full') throw full(board);
          }
          const submission = {
            board: board.uid,
            period,
            persona: persona.uid,
            user: persona.owner,
            score,
            subscore,
            metadata: body.metadata ?? null,
            operator: board.operator,
            sortOrder: board.sortOrder,
            subscoreOperator: board.subscoreOperator,
            subscoreSortOrder: board.subscoreSortOrder,
            maxNumScore: board.maxNumScore,
            perUser: board.entrant === 'USER',
          };
          return this.records.submit(db, submission, mustExist, (written, db) => this.standing(board, written, db));
        }),
      () => this.metrics.countRetry('leaderboard_submit'),
    );
    if (!outcome) throw await this.whyRefused(board, period, persona.uid);
    // Ranked among everything committed so far, this write included: what any instance answers now.
    const { record } = outcome.submitted;
    const { size, ranks } = await this.ranks.ranks(period, record.rankKey === null ? [] : [record.rankKey]);
    return this.view(board, record, ranks[0] ?? null, size);
  }

  /** Joins the caller's persona to the period open now (idempotent: a member answers its record); 409 when it is full. */
  async join(boardUid: string, body: JoinLeaderboardDto, caller: Caller): Promise<LeaderboardRecordView> {
    const board = await this.boards.cached(boardUid);
    const persona = await this.actingPersona(caller, body.personaUid);
    const period = await this.openPeriod(board);
    const seat = await this.records.transaction((db) =>
      this.records.join(db, {
        board: board.uid,
        period,
        persona: persona.uid,
        user: persona.owner,
        maxSize: board.maxSize,
        perUser: board.entrant === 'USER',
      }),
    );
    if (seat === 'full') throw full(board);
    const [record] = await this.ranked(
      board,
      { uid: period, status: 'OPEN', rankCount: null },
      await this.records.ofPersonas(period, [persona.uid]),
    );
    if (!record) throw notFound('leaderboard record of persona', persona.uid);
    return record;
  }

  /** A page of the period's records in rank order; the cursor keeps every page at the first one's moment. */
  async page(boardUid: string, choice: PeriodChoice, limit: number, cursorText: string | undefined): Promise<RecordPage> {
    const board = await this.boards.cached(boardUid);
    const cursor = cursorText === undefined ? undefined : decodeCursor(this.cursors, cursorText);
    const period = cursor ? await this.periodByUid(board, cursor.p) : await this.choose(board, choice);
    if (!period) return { records: [], nextCursor: undefined };
    if (period.status === 'CLOSED' || (cursor && cursor.k === undefined)) {
      const rows = await this.records.rankedAfter(period.uid, cursor?.r ?? 0, limit);
      const records = rows.map((row) => this.view(board, row, row.rank, period.rankCount ?? 0));
      const last = rows.at(-1);
      const more = last !== undefined && rows.length === limit && last.rank! < (period.rankCount ?? 0);
      return { records, nextCursor: more ? this.cursor({ p: period.uid, r: last.rank!, t: cursor?.t ?? Date.now() }) : undefined };
    }
    return cursor ? this.laterPage(board, period.uid, cursor, limit) : this.firstPage(board, period.uid, limit);
  }

  /** Up to `limit` records around the persona's (it included), in rank order. */
  async around(boardUid: string, personaUid: string, choice: PeriodChoice, limit: number): Promise<LeaderboardRecordView[]> {
    const board = await this.boards.cached(boardUid);
    const period = await this.choose(board, choice);
    const [own] = period ? await this.records.ofPersonas(period.uid, [personaUid]) : [];
    if (!period || !own || (period.status === 'OPEN' ? own.rankKey === null : own.rank === null)) {
      throw notFound(`a ranked record of persona ${personaUid} on leaderboard`, boardUid);
    }
    if (period.status === 'CLOSED') {
      const first = Math.max(1, own.rank! - Math.floor((limit - 1) / 2));
      const rows = await this.records.rankedBetween(period.uid, first, first + limit - 1);
      return rows.map((row) => this.view(board, row, row.rank, period.rankCount ?? 0));
    }
    const { keys, firstRank, size } = await this.ranks.around(period.uid, own.rankKey!, limit);
    return this.pageOf(board, period.uid, keys, firstRank, size, false);
  }

  /** The records of these personas (a friends list), in rank order; those without a record are left out. */
  async ofPersonas(boardUid: string, personaUids: string[], choice: PeriodChoice): Promise<LeaderboardRecordView[]> {
    const board = await this.boards.cached(boardUid);
    const period = await this.choose(board, choice);
    if (!period) return [];
    return this.ranked(board, period, await this.records.ofPersonas(period.uid, personaUids));
  }

  /** The caller's personas' records, in rank order. */
  async mine(boardUid: string, caller: Caller, choice: PeriodChoice): Promise<LeaderboardRecordView[]> {
    const board = await this.boards.cached(boardUid);
    const period = await this.choose(board, choice);
    if (!period) return [];
    return this.ranked(board, period, await this.records.ofUser(period.uid, caller.uid));
  }

  /**
   * A persona's records in the current period of every board it has one there (what `period=current`
   * reads), boards by name, with their ranks: for its owner and admins. A board whose current period
   * has no record of the persona is left out, so a page may hold fewer than `limit`: `X-Next-Skip` says
   * where the next begins while boards may follow.
   */
  async acrossBoards(personaUid: string, caller: Caller, skip: number, limit: number): Promise<PersonaLeaderboardRecordView[]> {
    const owner = await this.personas.ownerOf(personaUid);
    if (owner === undefined) throw notFound('persona', personaUid);
    requireOwnPersona(caller, personaUid, owner);
    const rows = await this.records.latestOfPersona(personaUid, skip, limit);
    const now = new Date();
    const views: PersonaLeaderboardRecordView[] = [];
    for (const row of rows) {
      const board = await this.boards.cached(row.leaderboardUid);
      const window = periodAt(board, now);
      // The board's latest period began before the current one, which no record has made yet.
      if (window && window.startsAt.getTime() !== row.periodStartsAt.getTime()) continue;
      const period = { uid: row.periodUid, status: row.periodStatus, rankCount: row.periodRankCount };
      const [view] = await this.ranked(board, period, [row]);
      views.push({ ...view, leaderboardName: row.leaderboardName, periodStatus: row.periodStatus });
    }
    return rows.length === limit ? markCut(views, skip + limit) : views;
  }

  /** An admin deletes a persona's record in one period: it leaves the ranks at once; the audit keeps who and what. */
  async removeRecord(boardUid: string, personaUid: string, choice: PeriodChoice, admin: Caller, client: ClientInfo): Promise<void> {
    const board = await this.boards.cached(boardUid);
    const period = await this.choose(board, choice);
    if (!period) throw notFound(`a record of persona ${personaUid} on leaderboard`, boardUid);
    const removed = await this.removeAudited(personaUid, period.uid, admin, client, boardUid);
    if (removed === 0) throw notFound(`a record of persona ${personaUid} on leaderboard`, boardUid);
  }

  /** An admin deletes every leaderboard record of a persona (all boards, all periods). */
  async removeAllOf(personaUid: string, admin: Caller, client: ClientInfo): Promise<void> {
    if ((await this.personas.ownerOf(personaUid)) === undefined) throw notFound('persona', personaUid);
    await this.removeAudited(personaUid, null, admin, client, null);
  }

  private async removeAudited(
    personaUid: string,
    period: string | null,
    admin: Caller,
    client: ClientInfo,
    board: string | null,
  ): Promise<number> {
    const removed = await this.records.transaction(async (db) => {
      const rows = await this.records.remove(db, personaUid, period);
      if (rows.length > 0) {
        await this.audit.record(
          {
            userUid: rows[0].userUid,
            event: AuditEvent.LEADERBOARD_RECORDS_DELETED,
            outcome: 'success',
            ...client,
            detail: {
              by: admin.uid,
              personaUid,
              leaderboardUid: board,
              periodUid: period,
              records: rows.map((row) => ({
                leaderboardUid: row.leaderboardUid,
                periodUid: row.periodUid,
                score: row.score,
                subscore: row.subscore,
              })),
            },
          },
          db,
        );
      }
      return rows.length;
    });
    await this.ranks.catchUp();
    return removed;
  }

  /** Where a written record stands, as the structure sees the board at the write (for its events). */
  private async standing(board: Leaderboard, { record, oldKey }: Submitted, db: Transaction): Promise<Standing> {
    const key = record.rankKey;
    const top = board.rankLostTop;
    // With no structure ready (Redis just lost, the tree not built yet), the write counts the others itself.
    const seen =
      (await this.ranks.standing(record.periodUid, key, oldKey, top)) ??
      standingBeforeWrite(await this.records.others(db, record.periodUid, record.personaUid, key, oldKey, top), key, oldKey, top);
    if (key === null) return { rank: null, rankCount: seen.size - (seen.present ? 1 : 0) };
    const rank = seen.rank - (seen.present && oldKey! < key ? 1 : 0);
    const standing: Standing = { rank, rankCount: seen.size + (seen.present ? 0 : 1) };
    const wasInTop = seen.present && seen.oldRank <= top;
    if (top > 0 && rank <= top && !wasInTop) {
      const pushed = seen.atTop;
      if (pushed !== undefined && pushed !== oldKey) standing.pushedOut = { personaUid: personaOfKey(pushed), rank: top + 1 };
    }
    return standing;
  }

  /** A page cursor's text: it expires when the log of its first page's moment may be gone (cursorLifeMs). */
  private cursor(cursor: PageCursor): string {
    return encodeCursor(this.cursors, cursor, this.cursorLifeMs);
  }

  private async firstPage(board: Leaderboard, period: string, limit: number): Promise<RecordPage> {
    const { keys, size, moment } = await this.ranks.page(period, undefined, limit);
    const records = await this.pageOf(board, period, keys, 1, size, true);
    // A cursor only where records follow: a full last page leads nowhere.
    const nextCursor =
      keys.length === limit && limit < size
        ? this.cursor({ p: period, r: limit, k: keys.at(-1), s: moment.after, g: moment.awaited, t: Date.now() })
        : undefined;
    return { records, nextCursor };
  }

  /**
   * A later page at the first page's moment: the structure now, less the changes applied since that
   * moment (read back from the log), so that a record that moved meanwhile is neither skipped nor
   * shown twice. Scores come from the keys, as they stood at that moment.
   */
  private async laterPage(board: Leaderboard, period: string, cursor: PageCursor, limit: number): Promise<RecordPage> {
    // The structure is read first, then the log: every change applied at the structure's moment had
    // committed by then, so the log read after holds it. Keys added since the cursor's moment are left
    // out of the structure's page, so it is read with that many more (tried again if more came).
    for (let extra = 0; ;) {
      const { keys: current, size, moment } = await this.ranks.page(period, cursor.k, limit + extra);
      const since = (await this.log.periodChangesSince(period, cursor.s!, cursor.g!)).filter((change) => appliedAt(moment, change.seq));
      const then = pageAtMoment({ keys: current, size }, since, cursor.k, limit, extra);
      if ('readAgainWith' in then) {
        extra = then.readAgainWith;
        continue;
      }
      const { keys, size: rankCount } = then;
      const records = await this.pageOf(board, period, keys, cursor.r + 1, rankCount, true);
      const more = keys.length === limit && cursor.r + limit < rankCount;
      const nextCursor = more ? this.cursor({ ...cursor, r: cursor.r + limit, k: keys.at(-1) }) : undefined;
      return { records, nextCursor };
    }
  }

  /** Records for keys in rank order from `firstRank`, with their rows' names and counts (and, for pages, the keys' scores). */
  private async pageOf(board: Leaderboard, period: string, keys: string[], firstRank: number, rankCount: number, scoresFromKeys: boolean) {
    const rows = new Map((await this.records.ofPersonas(period, keys.map(personaOfKey))).map((row) => [row.personaUid, row]));
    const views: LeaderboardRecordView[] = [];
    keys.forEach((key, index) => {
      const row = rows.get(personaOfKey(key));
      if (!row) return;
      const view = this.view(board, row, firstRank + index, rankCount);
      if (scoresFromKeys) {
        const entry = entryOfKey(board, key);
        Object.assign(view, { score: int64Json(entry.score), subscore: int64Json(entry.subscore) });
      }
      views.push(view);
    });
    return views;
  }

  /** Records with their ranks, in rank order: final ones for a closed period, the structure's for an open one. */
  private async ranked(board: Leaderboard, period: Pick<LeaderboardPeriod, 'uid' | 'status' | 'rankCount'>, rows: Named[]) {
    if (period.status === 'CLOSED') {
      return rows.map((row) => this.view(board, row, row.rank, period.rankCount ?? 0)).sort(byRank);
    }
    const keyed = rows.filter((row) => row.rankKey !== null);
    const { size, ranks } = await this.ranks.ranks(
      period.uid,
      keyed.map((row) => row.rankKey!),
    );
    const rankOf = new Map(keyed.map((row, index) => [row, ranks[index]]));
    return rows.map((row) => this.view(board, row, rankOf.get(row) ?? null, size)).sort(byRank);
  }

  private view(board: Leaderboard, record: Named, rank: number | null, rankCount: number): LeaderboardRecordView {
    return {
      uid: record.uid,
      leaderboardUid: record.leaderboardUid,
      periodUid: record.periodUid,
      personaUid: record.personaUid,
      personaName: record.personaName,
      rank,
      rankCount,
      score: int64Json(record.score),
      subscore: int64Json(record.subscore),
      numScore: record.numScore,
      maxNumScore: board.maxNumScore,
      metadata: record.metadata,
      dateCreated: record.dateCreated,
      dateModified: record.dateModified,
      version: record.version,
    };
  }

  /** The persona acting: the one named (yours, or anyone's for an admin; 404 unknown), else your first. */
  private async actingPersona(caller: Caller, personaUid: string | undefined): Promise<{ uid: string; owner: string }> {
    if (personaUid === undefined) {
      const first = await this.personas.firstOf(caller.uid);
      if (!first) throw notFound('persona of user', caller.uid);
      return { uid: first, owner: caller.uid };
    }
    const uid = personaUid.toLowerCase();
    const owner = await this.personas.ownerOf(uid);
    if (owner === undefined) throw notFound('persona', uid);
    requireOwnPersona(caller, uid, owner);
    return { uid, owner };
  }

  /** The uid of the period that takes scores now (made at its first write); 409 NOT_ACTIVE outside the board's periods. */
  private async openPeriod(board: Leaderboard): Promise<string> {
    const now = new Date();
    const window = periodAt(board, now);
    if (!window || !isOpen(window, now)) {
      const when = window?.nextStartsAt ?? (board.startAt && now < board.startAt ? board.startAt : undefined);
      throw new ApiException(
        HttpStatus.CONFLICT,
        ErrorCode.NOT_ACTIVE,
        `leaderboard ${board.uid} takes no scores now${when ? `: the next period begins at ${when.toISOString()}` : ': it has ended'}`,
      );
    }
    const cacheKey = `${board.uid}:${window.startsAt.getTime()}`;
    let period = this.periodUids.get(cacheKey);
    if (!period) {
      period = await this.periods.ensure(board.uid, window);
      if (this.periodUids.size > 10_000) this.periodUids.clear();
      this.periodUids.set(cacheKey, period);
    }
    return period.uid;
  }

  /** The period a read names, if it exists yet. */
  private async choose(board: Leaderboard, choice: PeriodChoice): Promise<LeaderboardPeriod | undefined> {
    if (choice !== 'current' && choice !== 'previous') return this.periodByUid(board, choice);
    const window = periodAt(board, new Date());
    const current = window ? await this.periods.findByStart(board.uid, window.startsAt) : undefined;
    if (choice === 'current') return current ?? (window ? undefined : await this.latest(board));
    const before = window ? await this.periods.before(board.uid, window.startsAt) : await this.beforeLatest(board);
    return before ? this.periods.findOne(before, undefined) : undefined;
  }

  private async latest(board: Leaderboard): Promise<LeaderboardPeriod | undefined> {
    const uid = await this.periods.latest(board.uid);
    return uid ? this.periods.findOne(uid, undefined) : undefined;
  }

  private async beforeLatest(board: Leaderboard): Promise<string | undefined> {
    const latest = await this.latest(board);
    return latest ? this.periods.before(board.uid, latest.startsAt) : undefined;
  }

  private async periodByUid(board: Leaderboard, uid: string): Promise<LeaderboardPeriod> {
    const period = await this.periods.findOne(uid, undefined).catch(() => undefined);
    if (!period || period.leaderboardUid !== board.uid) throw notFound('period of this leaderboard', uid);
    return period;
  }

  /** Why a submission wrote nothing: not joined, no attempt left, or the period closed meanwhile. */
  private async whyRefused(board: Leaderboard, period: string, persona: string): Promise<ApiException> {
    const numScore = await this.records.numScoreOf(period, persona);
    if (numScore === undefined && board.joinRequired) {
      return new ApiException(
        HttpStatus.CONFLICT,
        ErrorCode.NOT_JOINED,
        `join leaderboard ${board.uid} first: POST /leaderboards/${board.uid}/join`,
      );
    }
    if (board.maxNumScore !== null && numScore !== undefined && numScore >= board.maxNumScore) return noAttemptsLeft(board.maxNumScore);
    return new ApiException(HttpStatus.CONFLICT, ErrorCode.NOT_ACTIVE, `this period of leaderboard ${board.uid} has closed`);
  }
}

const byRank = (left: LeaderboardRecordView, right: LeaderboardRecordView) => (left.rank ?? Infinity) - (right.rank ?? Infinity);

const full = (board: Leaderboard) =>
  new ApiException(
    HttpStatus.CONFLICT,
    ErrorCode.LEADERBOARD_FULL,
    `this period of leaderboard ${board.uid} is full (${board.maxSize} personas)`,
  );
