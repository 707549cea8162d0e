import { RankSet } from './rank-set.js';

describe('the in-process rank set', () => {
  it('counts, pages and looks around in key order', () => {
    const set = RankSet.of(['b', 'd', 'f', 'h']);
    expect(set.size).toBe(4);
    expect(set.countBefore('a')).toBe(0);
    expect(set.countBefore('d')).toBe(1);
    expect(set.countBefore('e')).toBe(2);
    expect(set.countBefore('z')).toBe(4);
    expect(set.after(undefined, 2)).toEqual(['b', 'd']);
    expect(set.after('d', 10)).toEqual(['f', 'h']);
    expect(set.after('e', 1)).toEqual(['f']);
    expect(set.before('f', 5)).toEqual(['b', 'd']);
    expect(set.before('g', 1)).toEqual(['f']);
    expect(set.before('b', 3)).toEqual([]);
  });

  it('lets a removal that arrives before its addition cancel it', () => {
    const set = new RankSet();
    set.add('a');
    set.remove('c');
    set.add('b');
    set.add('c');
    expect(set.after(undefined, 10)).toEqual(['a', 'b']);
    set.remove('a');
    expect(set.size).toBe(1);
  });
});
