import { Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import { runStatement, statement } from '../../database/statement.js';
import type { RankChange } from './change-cursor.js';
import type { RankMoment } from './rank-index.js';

/** Rows of the log one catch-up reads at most (it reads on while batches come back full). */
export const CHANGE_BATCH = 10_000;
/** Rank keys one rebuild query reads at most (it reads on after the last). */
const REBUILD_BATCH = 50_000;

type ChangeRow = Omit<RankChange, 'seq'> & { seq: string };

const CHANGES_AFTER = statement<{ after: number; awaited: number[]; limit: number }, ChangeRow>(
  'leaderboard_changes_after',
  (p) => `(SELECT seq, "periodUid", removed, added FROM leaderboard_rank_changes WHERE seq > ${p.after} ORDER BY seq LIMIT ${p.limit})
          UNION ALL
          (SELECT seq, "periodUid", removed, added FROM leaderboard_rank_changes WHERE seq = ANY(${p.awaited}::bigint[]))`,
);

const PERIOD_CHANGES = statement<{ period: string; after: number; awaited: number[] }, ChangeRow>(
  'leaderboard_period_changes',
  (p) => `SELECT seq, "periodUid", removed, added FROM leaderboard_rank_changes
          WHERE "periodUid" = ${p.period} AND (seq > ${p.after} OR seq = ANY(${p.awaited}::bigint[]))`,
);

// A share lock on the log waits for the transactions writing to it and holds new ones back while the
// snapshot is exported, so that every change number handed out so far is either in the snapshot or
// rolled back: the rebuilt structure then follows the log from the last of them with nothing awaited.
const LOCK_LOG = statement('leaderboard_lock_log', () => `LOCK TABLE leaderboard_rank_changes IN SHARE MODE`);
const EXPORT_SNAPSHOT = statement<Record<string, never>, { snapshot: string; last: string }>(
  'leaderboard_export_snapshot',
  () => `SELECT pg_export_snapshot() AS snapshot,
            (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM leaderboard_rank_changes_seq) AS last`,
);
const SNAPSHOT_ID = /^[0-9A-F]+-[0-9A-F]+(?:-[0-9]+)?$/i;

const OPEN_PERIODS = statement<Record<string, never>, { uid: string }>(
  'leaderboard_open_periods',
  () => `SELECT uid FROM leaderboard_periods WHERE status = 'OPEN'`,
);

// Counted on the index of ranked records, in the snapshot: which periods a budgeted rebuild can hold.
const OPEN_PERIOD_SIZES = statement<Record<string, never>, { uid: string; ranked: number }>(
  'leaderboard_open_period_sizes',
  () => `SELECT period.uid, (SELECT count(*)::int FROM leaderboard_records r WHERE r."periodUid" = period.uid AND r."rankKey" IS NOT NULL) AS ranked
          FROM leaderboard_periods period WHERE period.status = 'OPEN'`,
);

const PERIOD_KEYS = statement<{ period: string; after: string; limit: number }, { keys: string | null }>(
  'leaderboard_period_keys',
  (p) => `SELECT string_agg("rankKey", ',' ORDER BY "rankKey") AS keys FROM (
            SELECT "rankKey" FROM leaderboard_records
            WHERE "periodUid" = ${p.period} AND "rankKey" IS NOT NULL AND "rankKey" > ${p.after}::text COLLATE "C"
            ORDER BY "rankKey" LIMIT ${p.limit}) AS page`,
);

/**
 * The ranks of a period read from PostgreSQL, for the periods an instance does not hold in memory
 * (LEADERBOARD_RANKS_IN_MEMORY): each on the index of ranked records ("periodUid", "rankKey"), so a rank
 * costs a walk of the keys before it, and a page a walk of its own keys.
 */
const rankedIn = (period: string) => `FROM leaderboard_records WHERE "periodUid" = ${period} AND "rankKey" IS NOT NULL`;

const RANKS_OF = statement<{ period: string; keys: string[] }, { size: number; ranks: number[] }>(
  'leaderboard_ranks_of',
  (p) => `SELECT (SELECT count(*)::int ${rankedIn(p.period)}) AS size,
            ARRAY(SELECT (SELECT count(*)::int ${rankedIn(p.period)} AND "rankKey" < k.key COLLATE "C") + 1
                  FROM unnest(${p.keys}::text[]) WITH ORDINALITY AS k(key, n) ORDER BY k.n) AS ranks`,
);

const KEYS_BEFORE = statement<{ period: string; key: string; count: number }, { keys: string[] }>(
  'leaderboard_keys_before',
  (p) => `SELECT ARRAY(SELECT "rankKey" ${rankedIn(p.period)} AND "rankKey" < ${p.key}::text COLLATE "C"
                       ORDER BY "rankKey" DESC LIMIT ${p.count}) AS keys`,
);

const KEYS_AFTER = statement<{ period: string; after: string; count: number }, { keys: string[] }>(
  'leaderboard_keys_after',
  (p) => `SELECT ARRAY(SELECT "rankKey" ${rankedIn(p.period)} AND "rankKey" > ${p.after}::text COLLATE "C"
                       ORDER BY "rankKey" LIMIT ${p.count}) AS keys`,
);

// One statement, so one snapshot: the keys, the count and the changes since a moment are read together.
const PAGE_SINCE = statement<
  { period: string; after: string; count: number; since: number; awaited: number[] },
  { size: number; keys: string[]; changes: Array<{ seq: number; removed: string | null; added: string | null }> }
>(
  'leaderboard_page_since',
  (p) => `SELECT (SELECT count(*)::int ${rankedIn(p.period)}) AS size,
            ARRAY(SELECT "rankKey" ${rankedIn(p.period)} AND "rankKey" > ${p.after}::text COLLATE "C"
                  ORDER BY "rankKey" LIMIT ${p.count}) AS keys,
            (SELECT coalesce(json_agg(json_build_object('seq', seq, 'removed', removed, 'added', added)), '[]')
             FROM leaderboard_rank_changes WHERE "periodUid" = ${p.period} AND (seq > ${p.since} OR seq = ANY(${p.awaited}::bigint[]))) AS changes`,
);

const STILL_OPEN = statement<{ periods: string[] }, { uid: string }>(
  'leaderboard_still_open',
  (p) => `SELECT uid FROM leaderboard_periods WHERE uid = ANY(${p.periods}::uuid[]) AND status = 'OPEN'`,
);

// pg_control_system() is readable by every role on PostgreSQL itself; a host that revokes it leaves
// the database's name, which still tells apart the databases of one server.
const DATABASE_IDENTITY = statement<Record<string, never>, { id: string }>(
  'database_identity',
  () => `SELECT (SELECT system_identifier::text FROM pg_control_system()) || '/' || current_database() AS id`,
);
const DATABASE_NAME = statement<Record<string, never>, { id: string }>('database_name', () => `SELECT current_database() AS id`);

const PRUNE = statement<{ seconds: number }>(
  'leaderboard_prune_changes',
  (p) => `DELETE FROM leaderboard_rank_changes WHERE seq IN (
            SELECT seq FROM leaderboard_rank_changes WHERE "dateCreated" < now() - make_interval(secs => ${p.seconds}) LIMIT 50000)`,
);

const asChange = (row: ChangeRow): RankChange => ({ ...row, seq: Number(row.seq) });

/**
 * The ranked records of the open periods at one moment, and the last change number that moment includes;
 * `left`: the open periods a budget left out (their ranked records, by period).
 */
export interface RankSnapshot {
  after: number;
  periods: Map<string, string[]>;
  left: Map<string, number>;
}

/** The log of rank-key changes (written by LeaderboardRecordsRepository with each change) and the snapshots rank structures start from. */
@Injectable()
export class LeaderboardRanksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The changes after `after`, and the awaited ones that have committed since (in no set order). */
  async changesAfter(after: number, awaited: number[]): Promise<RankChange[]> {
    const rows = await runStatement(this.dataSource, CHANGES_AFTER, { after, awaited, limit: CHANGE_BATCH });
    return rows.map(asChange);
  }

  /** The changes of one period after a moment (`after`, `awaited`): what a page cursor's moment did not have yet. */
  async periodChangesSince(period: string, after: number, awaited: number[]): Promise<RankChange[]> {
    return (await runStatement(this.dataSource, PERIOD_CHANGES, { period, after, awaited })).map(asChange);
  }

  /**
   * The rank keys of every open period, in rank order, at one moment, and the log's last number at
   * that moment: an exported snapshot taken under a brief share lock on the log (writers wait
   * milliseconds, not the seconds the keys take to read). With a `budget`, only the smallest periods
   * whose ranked records fit in it together are read; the others are counted, not read (`left`).
   */
  async snapshot(budget = Infinity): Promise<RankSnapshot> {
    const exporter = this.dataSource.createQueryRunner();
    const reader = this.dataSource.createQueryRunner();
    try {
      await exporter.startTransaction('REPEATABLE READ');
      await runStatement(exporter.manager, LOCK_LOG, {});
      const [{ snapshot, last }] = await runStatement(exporter.manager, EXPORT_SNAPSHOT, {});
      if (!SNAPSHOT_ID.test(snapshot)) throw new Error(`unexpected snapshot id ${snapshot}`);
      await reader.startTransaction('REPEATABLE READ');
      await runStatement(
        reader.manager,
        statement('leaderboard_import_snapshot', () => `SET TRANSACTION SNAPSHOT '${snapshot}'`),
        {},
      );
      await exporter.commitTransaction();
      const periods = new Map<string, string[]>();
      const left = new Map<string, number>();
      let open = await runStatement(reader.manager, OPEN_PERIODS, {});
      if (budget !== Infinity) {
        const sizes = (await runStatement(reader.manager, OPEN_PERIOD_SIZES, {})).sort((one, other) => one.ranked - other.ranked);
        let held = 0;
        for (const { uid, ranked } of sizes) {
          if (held + ranked <= budget) held += ranked;
          else left.set(uid, ranked);
        }
        open = sizes.filter(({ uid }) => !left.has(uid));
      }
      for (const { uid } of open) {
        const keys: string[] = [];
        for (let after = ''; ;) {
          const [{ keys: page }] = await runStatement(reader.manager, PERIOD_KEYS, { period: uid, after, limit: REBUILD_BATCH });
          if (!page) break;
          const batch = page.split(',');
          keys.push(...batch);
          if (batch.length < REBUILD_BATCH) break;
          after = batch[batch.length - 1];
        }
        periods.set(uid, keys);
      }
      await reader.commitTransaction();
      return { after: Number(last), periods, left };
    } finally {
      if (exporter.isTransactionActive) await exporter.rollbackTransaction().catch(() => undefined);
      if (reader.isTransactionActive) await reader.rollbackTransaction().catch(() => undefined);
      await exporter.release();
      await reader.release();
    }
  }

  /** From PostgreSQL: the period's ranked records, and the rank each key holds or would hold (1 + the keys before it). */
  async ranksOf(period: string, keys: string[]): Promise<{ size: number; ranks: number[] }> {
    return (await runStatement(this.dataSource, RANKS_OF, { period, keys }))[0];
  }

  /** From PostgreSQL: up to `count` keys before `key`, in rank order. */
  async keysBefore(period: string, key: string, count: number): Promise<string[]> {
    return (await runStatement(this.dataSource, KEYS_BEFORE, { period, key, count }))[0].keys.reverse();
  }

  /** From PostgreSQL: up to `count` keys after `after`, in rank order. */
  async keysAfter(period: string, after: string, count: number): Promise<string[]> {
    return (await runStatement(this.dataSource, KEYS_AFTER, { period, after, count }))[0].keys;
  }

  /**
   * From PostgreSQL, in one snapshot: up to `count` keys after `after` (from the first when empty), the
   * period's ranked records, and the period's changes a moment (`since`, `awaited`) had not applied yet.
   */
  async pageSince(period: string, after: string, count: number, since: RankMoment) {
    const [row] = await runStatement(this.dataSource, PAGE_SINCE, { period, after, count, since: since.after, awaited: since.awaited });
    return { ...row, changes: row.changes.map((change) => ({ ...change, periodUid: period })) };
  }

  /** Which of these periods are still open (the others' structures can go). */
  async stillOpen(periods: string[]): Promise<Set<string>> {
    if (periods.length === 0) return new Set();
    return new Set((await runStatement(this.dataSource, STILL_OPEN, { periods })).map((row) => row.uid));
  }

  /** What tells this database apart from any other that shares a Redis with it. */
  async databaseIdentity(): Promise<string> {
    try {
      return (await runStatement(this.dataSource, DATABASE_IDENTITY, {}))[0].id;
    } catch (error) {
      // Only a refusal: any other failure must not leave this instance in a namespace of its own.
      if (!(error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '42501')) throw error;
      return (await runStatement(this.dataSource, DATABASE_NAME, {}))[0].id;
    }
  }

  /** Removes log rows older than `seconds` (a batch at a time). */
  async prune(seconds: number): Promise<void> {
    await runStatement(this.dataSource, PRUNE, { seconds });
  }
}
