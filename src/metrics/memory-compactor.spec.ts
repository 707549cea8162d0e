import { COMPACTION_MIN_GROWTH_BYTES, compactionDue } from './memory-compactor.js';

const MB = 1024 * 1024;

describe('compactionDue', () => {
  it('compacts once the instance has been quiet for the whole window after start', () => {
    expect(compactionDue([0, 0, 0, 0], 5, 160 * MB, undefined)).toBe(false);
    expect(compactionDue([0, 0, 0, 0, 0], 5, 160 * MB, undefined)).toBe(true);
  });

  it('counts a health check a second as quiet, and more than that as busy', () => {
    expect(compactionDue([1, 1, 1, 1, 1], 5, 160 * MB, undefined)).toBe(true);
    expect(compactionDue([0, 0, 6, 0, 0], 5, 160 * MB, undefined)).toBe(false);
    expect(compactionDue([2, 1, 1, 1, 1], 5, 160 * MB, undefined)).toBe(false);
  });

  it('looks at the last seconds only: a busy period that ended is no reason to wait', () => {
    expect(compactionDue([900, 850, 0, 0, 0, 0, 0], 5, 200 * MB, 140 * MB)).toBe(true);
    expect(compactionDue([900, 850, 0, 0, 0, 0], 5, 200 * MB, 140 * MB)).toBe(false);
  });

  it('compacts again only when the resident set grew enough to be worth a pause', () => {
    const after = 135 * MB;
    expect(compactionDue([0, 0, 0, 0, 0], 5, after + COMPACTION_MIN_GROWTH_BYTES - 1, after)).toBe(false);
    expect(compactionDue([0, 0, 0, 0, 0], 5, after + COMPACTION_MIN_GROWTH_BYTES, after)).toBe(true);
    expect(compactionDue([0, 0, 0, 0, 0], 5, after - 4 * MB, after)).toBe(false);
  });

  it('never compacts when turned off', () => {
    expect(compactionDue([0, 0, 0, 0, 0], 0, 300 * MB, undefined)).toBe(false);
  });
});
