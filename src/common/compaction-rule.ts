/**
 * When an instance compacts its heap (memory-compactor.ts): a pure rule, so that it is tested alone and
 * the configuration's text (MEMORY_COMPACT_IDLE) quotes its thresholds rather than repeating them.
 */

/** Growth of the resident set since the last compaction below which another is not worth its pause. */
export const COMPACTION_MIN_GROWTH_BYTES = 8 * 1024 * 1024;

/** Work (requests answered, sockets opened, events sent) per second that still counts as quiet: a load balancer's health checks. */
export const QUIET_WORK_PER_SECOND = 1;

/**
 * Work per second that makes a busy period, one worth compacting after; between the two a second is
 * neither (a scrape and a probe in the same second, an operator's few requests).
 */
export const BUSY_WORK_PER_SECOND = 10;

/** What the compactor knows when it decides: see compactionDue. */
export interface CompactorState {
  /** Work of each past second, newest last (at least the quiet window's). */
  work: readonly number[];
  quietSeconds: number;
  rssBytes: number;
  /** The resident set after the last compaction; undefined before the first. */
  rssAfterLast: number | undefined;
  /** Whether a second since the last compaction was busy (BUSY_WORK_PER_SECOND). */
  busySinceLast: boolean;
}

/**
 * Whether an instance should compact its heap now: it has been quiet for the whole window, and either
 * it has not compacted since it started (the start-up's garbage) or it has been busy since and its
 * resident set has grown enough. Once per quiet period at most: a quiet instance whose resident set
 * creeps up (thousands of idle sockets' pings) is not paused again and again.
 */
export function compactionDue({ work, quietSeconds, rssBytes, rssAfterLast, busySinceLast }: CompactorState): boolean {
  if (quietSeconds <= 0 || work.length < quietSeconds) return false;
  if (work.slice(-quietSeconds).some((count) => !isQuiet(count))) return false;
  return rssAfterLast === undefined || (busySinceLast && rssBytes - rssAfterLast >= COMPACTION_MIN_GROWTH_BYTES);
}

export function isQuiet(workInOneSecond: number): boolean {
  return workInOneSecond <= QUIET_WORK_PER_SECOND;
}

export function isBusy(workInOneSecond: number): boolean {
  return workInOneSecond > BUSY_WORK_PER_SECOND;
}
