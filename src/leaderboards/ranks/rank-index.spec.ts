import { appliedAt, pageAtMoment, standingBeforeWrite } from './rank-index.js';

describe('what a rank structure answers', () => {
  it('says which changes a moment had applied: up to its last, less the awaited', () => {
    const moment = { after: 10, awaited: [7] };
    expect([6, 7, 10, 11].map((seq) => appliedAt(moment, seq))).toEqual([true, false, true, false]);
  });

  it("counts a write's standing from the others as the structure saw the board before it", () => {
    const others = { size: 3, before: 1, beforeOld: 2, first: ['b', 'd'] };
    // The record moves from "e" (ranked third then) to "c": "b" ranks before it, and "e" counted once.
    expect(standingBeforeWrite(others, 'c', 'e', 2)).toEqual({ size: 4, present: true, rank: 2, oldRank: 3, atTop: 'd' });
    // A first score: nothing to remove, and whoever is second now is pushed out if "c" enters the top 2.
    expect(standingBeforeWrite(others, 'c', null, 2)).toEqual({ size: 3, present: false, rank: 2, oldRank: 0, atTop: 'd' });
    // Moving down past its old place: the old key ranked before the new one still counts.
    expect(standingBeforeWrite({ ...others, before: 3, beforeOld: 0 }, 'z', 'a', 2)).toEqual({
      size: 4,
      present: true,
      rank: 5,
      oldRank: 1,
      atTop: 'b',
    });
    expect(standingBeforeWrite(others, null, 'e', 0).atTop).toBeUndefined();
  });

  it('turns a page read now back into the page of an earlier moment, from the changes made since', () => {
    // Then: a b c d e f. Since: "b" moved to "g", "x" was added, "d" was removed.
    const since = [
      { removed: 'b', added: 'g' },
      { removed: null, added: 'x' },
      { removed: 'd', added: null },
    ];
    // Now: a c e f g x. The page of 3 after "a", as it was then: b c d.
    expect(pageAtMoment({ keys: ['c', 'e', 'f', 'g', 'x'], size: 6 }, since, 'a', 3, 2)).toEqual({ keys: ['b', 'c', 'd'], size: 6 });
    expect(pageAtMoment({ keys: ['a', 'c', 'e'], size: 6 }, since, undefined, 2, 2)).toEqual({ keys: ['a', 'b'], size: 6 });
    // Two keys came since and the page read was full with room for none: read again with more.
    expect(pageAtMoment({ keys: ['c', 'e', 'f'], size: 6 }, since, 'a', 3, 0)).toEqual({ readAgainWith: 4 });
    // A key added then removed since nets out: it was not there then, nor is it now.
    expect(
      pageAtMoment(
        { keys: ['a'], size: 1 },
        [
          { removed: null, added: 'q' },
          { removed: 'q', added: null },
        ],
        undefined,
        5,
        0,
      ),
    ).toEqual({
      keys: ['a'],
      size: 1,
    });
  });
});
