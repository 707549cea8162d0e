import { applySubmission, entryOfKey, type Ordering, personaOfKey, rankKey } from './operators.js';

const ordering = (overrides: Partial<Ordering> = {}): Ordering => ({
  sortOrder: 'DESC',
  operator: 'BEST',
  subscoreSortOrder: 'DESC',
  subscoreOperator: 'BEST',
  ...overrides,
});
const s = (score: bigint, subscore = 0n) => ({ score, subscore });

describe('operators', () => {
  it('BEST keeps the better score by the sort order, and the pair together', () => {
    expect(applySubmission(ordering(), s(10n, 5n), s(12n, 1n))).toEqual(s(12n, 1n));
    expect(applySubmission(ordering(), s(10n, 5n), s(9n, 99n))).toEqual(s(10n, 5n));
    expect(applySubmission(ordering(), s(10n, 5n), s(10n, 6n))).toEqual(s(10n, 6n));
    expect(applySubmission(ordering({ sortOrder: 'ASC' }), s(10n, 5n), s(9n, 0n))).toEqual(s(9n, 0n));
    // Fastest lap wins, and among equal laps the most points (a subscore sorted its own way).
    expect(applySubmission(ordering({ sortOrder: 'ASC', subscoreSortOrder: 'DESC' }), s(60n, 3n), s(60n, 4n))).toEqual(s(60n, 4n));
    expect(applySubmission(ordering({ sortOrder: 'ASC', subscoreSortOrder: 'DESC' }), s(60n, 3n), s(60n, 2n))).toEqual(s(60n, 3n));
  });

  it('SET replaces, INCREMENT adds, DECREMENT subtracts; a first submission counts from 0', () => {
    expect(applySubmission(ordering({ operator: 'SET', subscoreOperator: 'SET' }), s(10n, 1n), s(-3n, 2n))).toEqual(s(-3n, 2n));
    expect(applySubmission(ordering({ operator: 'INCREMENT', subscoreOperator: 'INCREMENT' }), s(10n, 1n), s(5n, 2n))).toEqual(s(15n, 3n));
    expect(applySubmission(ordering({ operator: 'DECREMENT', subscoreOperator: 'DECREMENT' }), s(10n, 1n), s(5n, 2n))).toEqual(s(5n, -1n));
    expect(applySubmission(ordering({ operator: 'INCREMENT', subscoreOperator: 'INCREMENT' }), undefined, s(5n, 2n))).toEqual(s(5n, 2n));
    expect(applySubmission(ordering({ operator: 'DECREMENT', subscoreOperator: 'DECREMENT' }), undefined, s(5n, 2n))).toEqual(s(-5n, -2n));
  });

  it('applies a separate subscore operator to the subscore alone', () => {
    // Best score, and the number of attempts counted up in the subscore.
    const counted = ordering({ subscoreOperator: 'INCREMENT' });
    expect(applySubmission(counted, s(10n, 3n), s(8n, 1n))).toEqual(s(10n, 4n));
    expect(applySubmission(counted, s(10n, 3n), s(12n, 1n))).toEqual(s(12n, 4n));
    expect(
      applySubmission(ordering({ operator: 'INCREMENT', subscoreOperator: 'BEST', subscoreSortOrder: 'ASC' }), s(10n, 30n), s(1n, 25n)),
    ).toEqual(s(11n, 25n));
  });
});

describe('rank keys', () => {
  const persona = '0b6f2c1e-7d4a-4e8b-9a35-2f1c6d8e9b70';
  const key = (o: Partial<Ordering>, score: bigint, subscore: bigint, reached: bigint, who = persona) =>
    rankKey(ordering(o), { score, subscore, reached, personaUid: who });

  it('sort as the board ranks: score by its order, then subscore by its own, then who reached it first', () => {
    const values = [-(2n ** 63n), -5n, -1n, 0n, 1n, 7n, 2n ** 53n + 1n, 2n ** 63n - 1n];
    for (const order of ['ASC', 'DESC'] as const) {
      const keys = values.map((value) => key({ sortOrder: order }, value, 0n, 1n));
      const sorted = [...keys].sort();
      expect(sorted).toEqual(order === 'ASC' ? keys : [...keys].reverse());
    }
    expect(key({}, 5n, 2n, 9n) < key({}, 5n, 1n, 1n)).toBe(true);
    expect(key({ subscoreSortOrder: 'ASC' }, 5n, 1n, 9n) < key({ subscoreSortOrder: 'ASC' }, 5n, 2n, 1n)).toBe(true);
    expect(key({}, 5n, 1n, 3n) < key({}, 5n, 1n, 4n)).toBe(true);
    expect(key({}, 5n, 1n, 3n)).toHaveLength(80);
  });

  it('give back their persona and numbers', () => {
    const o = ordering({ sortOrder: 'ASC', subscoreSortOrder: 'DESC' });
    const text = rankKey(o, { score: -42n, subscore: 2n ** 62n, reached: 77n, personaUid: persona });
    expect(personaOfKey(text)).toBe(persona);
    expect(entryOfKey(o, text)).toEqual({ score: -42n, subscore: 2n ** 62n, reached: 77n, personaUid: persona });
  });
});
