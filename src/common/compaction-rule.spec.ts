import { COMPACTION_MIN_GROWTH_BYTES, compactionDue, type CompactorState, isBusy, isQuiet } from './compaction-rule.js';

const MB = 1024 * 1024;
const QUIET = [0, 0, 0, 0, 0];

function due(state: Partial<CompactorState>): boolean {
  return compactionDue({ work: QUIET, quietSeconds: 5, rssBytes: 160 * MB, rssAfterLast: undefined, busySinceLast: false, ...state });
}

describe('compactionDue', () => {
  it('compacts once the instance has been quiet for the whole window after start', () => {
    expect(due({ work: [0, 0, 0, 0] })).toBe(false);
    expect(due({ work: QUIET })).toBe(true);
  });

  it('counts a health check a second as quiet, and any busier second as busy', () => {
    expect(due({ work: [1, 1, 1, 1, 1] })).toBe(true);
    expect(due({ work: [0, 0, 2, 0, 0] })).toBe(false);
    expect(due({ work: [0, 0, 0, 0, 40] })).toBe(false);
  });

  it('looks at the last seconds only: a busy period that ended is no reason to wait', () => {
    const after = { rssBytes: 200 * MB, rssAfterLast: 140 * MB, busySinceLast: true };
    expect(due({ ...after, work: [900, 850, 0, 0, 0, 0, 0] })).toBe(true);
    expect(due({ ...after, work: [900, 850, 0, 0, 0, 0] })).toBe(false);
  });

  it('compacts again after a busy period only when the resident set grew enough to be worth a pause', () => {
    const after = 135 * MB;
    expect(due({ rssAfterLast: after, busySinceLast: true, rssBytes: after + COMPACTION_MIN_GROWTH_BYTES - 1 })).toBe(false);
    expect(due({ rssAfterLast: after, busySinceLast: true, rssBytes: after + COMPACTION_MIN_GROWTH_BYTES })).toBe(true);
    expect(due({ rssAfterLast: after, busySinceLast: true, rssBytes: after - 4 * MB })).toBe(false);
  });

  it('does not compact again while the instance stays quiet, however its resident set creeps up', () => {
    expect(due({ rssAfterLast: 264 * MB, busySinceLast: false, rssBytes: 300 * MB })).toBe(false);
  });

  it('takes a scrape and a probe in the same second for neither quiet nor busy, and player traffic for busy', () => {
    expect([isQuiet(1), isBusy(1)]).toEqual([true, false]);
    expect([isQuiet(2), isBusy(2)]).toEqual([false, false]);
    expect([isQuiet(10), isBusy(10)]).toEqual([false, false]);
    expect([isQuiet(11), isBusy(11)]).toEqual([false, true]);
  });

  it('never compacts when turned off', () => {
    expect(due({ quietSeconds: 0, rssBytes: 300 * MB })).toBe(false);
  });
});
