import {
  firstRepeat,
  isRefusal,
  planDeletes,
  planWrites,
  refKey,
  type StorageWrite,
  storageValueProblem,
  type StoredState,
  type Usage,
  versionHolds,
} from './storage-rules.js';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const V1 = '0123456789abcdef0123456789abcdef';
const V2 = 'fedcba9876543210fedcba9876543210';

const write = (key: string, overrides: Partial<StorageWrite> = {}): StorageWrite => ({
  ownerUid: ALICE,
  collection: 'saves',
  key,
  json: '{"level":1}',
  size: 11,
  ...overrides,
});

const stored = (overrides: Partial<StoredState> = {}): StoredState => ({
  version: V1,
  size: 100,
  permissionRead: 'OWNER',
  permissionWrite: 'OWNER',
  ...overrides,
});

const state = (entries: Array<[StorageWrite | { ownerUid: string; collection: string; key: string }, StoredState]>) =>
  new Map(entries.map(([ref, value]) => [refKey(ref), value]));

const usage = (objects: number, bytes: number, owner = ALICE): Map<string, Usage> => new Map([[owner, { objects, bytes }]]);

describe('storage rules', () => {
  describe('versions', () => {
    it.each([
      ['no version: whatever is stored', undefined, V1, true],
      ['no version: nothing stored', undefined, undefined, true],
      ['"*" when nothing is stored', '*', undefined, true],
      ['"*" when something is', '*', V1, false],
      ['the version stored', V1, V1, true],
      ['another version', V2, V1, false],
      ['a version of an object that is gone', V1, undefined, false],
    ])('%s', (_case, expected, current, holds) => {
      expect(versionHolds(expected, current)).toBe(holds);
    });
  });

  describe('values', () => {
    it.each([
      ['an empty object', {}],
      ['nested objects, lists, numbers, strings', { level: 3, items: [{ id: 'a', n: -1.5e300 }], flags: { tutorial: true }, none: null }],
      ['text in any script, with emoji', { name: 'Ærøskøbing 東京 🎮' }],
    ])('accepts %s', (_case, value) => {
      expect(storageValueProblem(value)).toBeUndefined();
    });

    it.each([
      ['null', null, 'must be a JSON object'],
      ['an array', [1, 2], 'must be a JSON object'],
      ['a string', 'save', 'must be a JSON object'],
      ['a number', 3, 'must be a JSON object'],
      ['Infinity inside', { score: { best: Infinity } }, 'holds a number beyond the finite range at score.best'],
      ['U+0000 in a string', { name: 'a\u0000b' }, 'holds a text that cannot be stored (U+0000, or half of a surrogate pair) at name'],
      ['a lone surrogate in a list', { tags: ['ok', '\uD800'] }, 'at tags.1'],
      ['U+0000 in a key', { 'a\u0000': 1 }, 'holds a key that cannot be stored'],
      [
        'U+0000 in a nested key',
        { inner: { 'a\u0000': 1 } },
        'holds a key that cannot be stored (U+0000, or half of a surrogate pair) at inner',
      ],
    ])('refuses %s, saying where', (_case, value, problem) => {
      expect(storageValueProblem(value)).toContain(problem);
    });
  });

  describe('a batch of writes', () => {
    it("creates, replaces and counts each owner's usage change", () => {
      const plan = planWrites(
        [write('a', { size: 40 }), write('b', { size: 10, permissionRead: 'PUBLIC' }), write('c', { ownerUid: BOB, size: 5 })],
        state([[write('b'), stored({ size: 30, permissionRead: 'OWNER', permissionWrite: 'OWNER' })]]),
        usage(1, 30),
        false,
        () => ({ objects: 10, bytes: 1000 }),
      );
      if (isRefusal(plan)) throw new Error(`refused: ${JSON.stringify(plan)}`);
      expect(plan.usage).toEqual(
        new Map([
          [ALICE, { objects: 1, bytes: 20 }],
          [BOB, { objects: 1, bytes: 5 }],
        ]),
      );
      expect(plan.writes.map((entry) => [entry.key, entry.permissionRead, entry.permissionWrite])).toEqual([
        ['a', 'OWNER', 'OWNER'],
        ['b', 'PUBLIC', 'OWNER'],
        ['c', 'OWNER', 'OWNER'],
      ]);
    });

    it('keeps the permissions of a replaced object unless the write states others', () => {
      const plan = planWrites(
        [write('a'), write('b', { permissionWrite: 'OWNER' })],
        state([
          [write('a'), stored({ permissionRead: 'PUBLIC', permissionWrite: 'NONE' })],
          [write('b'), stored({ permissionRead: 'NONE', permissionWrite: 'NONE' })],
        ]),
        usage(2, 200),
        true,
        undefined,
      );
      if (isRefusal(plan)) throw new Error('refused');
      expect(plan.writes.map((entry) => [entry.permissionRead, entry.permissionWrite])).toEqual([
        ['PUBLIC', 'NONE'],
        ['NONE', 'OWNER'],
      ]);
    });

    it("refuses a player's write of a protected object, before anything else, and lets an admin through", () => {
      const current = state([[write('b'), stored({ permissionWrite: 'NONE' })]]);
      const batch = [write('a', { version: V2 }), write('b')];
      expect(planWrites(batch, current, usage(1, 100), false, () => ({ objects: 10, bytes: 1000 }))).toEqual({
        kind: 'protected',
        index: 1,
        ref: { ownerUid: ALICE, collection: 'saves', key: 'b' },
      });
      expect(planWrites([write('b')], current, usage(1, 100), true, undefined)).toMatchObject({ writes: [expect.anything()] });
    });

    it('lists every version that does not hold, with the version each object has now', () => {
      const current = state([
        [write('a'), stored({ version: V1 })],
        [write('b'), stored({ version: V1 })],
      ]);
      const refusal = planWrites(
        [
          write('a', { version: V1 }),
          write('b', { version: V2 }),
          write('c', { version: '*' }),
          write('a2', { version: V1 }),
          write('b2', { version: '*' }),
        ],
        new Map([...current, [refKey(write('b2')), stored({ version: V2 })]]),
        usage(3, 300),
        false,
        undefined,
      );
      expect(refusal).toEqual({
        kind: 'conflict',
        conflicts: [
          { index: 1, ref: { ownerUid: ALICE, collection: 'saves', key: 'b' }, currentVersion: V1 },
          { index: 3, ref: { ownerUid: ALICE, collection: 'saves', key: 'a2' }, currentVersion: null },
          { index: 4, ref: { ownerUid: ALICE, collection: 'saves', key: 'b2' }, currentVersion: V2 },
        ],
      });
    });

    it('holds the quotas exactly: at the limit is fine, one past it is refused with what is left', () => {
      const quota = { objects: 3, bytes: 100 };
      expect(isRefusal(planWrites([write('a', { size: 40 })], new Map(), usage(2, 60), false, () => quota))).toBe(false);
      expect(planWrites([write('a', { size: 41 })], new Map(), usage(2, 60), false, () => quota)).toEqual({
        kind: 'quota',
        ownerUid: ALICE,
        left: { objects: 1, bytes: 40 },
        guest: false,
      });
      expect(planWrites([write('a', { size: 1 }), write('b', { size: 1 })], new Map(), usage(2, 60), false, () => quota)).toMatchObject({
        kind: 'quota',
        left: { objects: 1, bytes: 40 },
      });
    });

    it('never refuses a write that shrinks an owner past the quota, and lets admins past it', () => {
      const quota = { objects: 3, bytes: 100 };
      const over = usage(5, 500);
      const current = state([[write('a'), stored({ size: 200 })]]);
      expect(isRefusal(planWrites([write('a', { size: 10 })], current, over, false, () => quota))).toBe(false);
      expect(planWrites([write('z', { size: 10 })], current, over, false, () => quota)).toMatchObject({
        kind: 'quota',
        left: { objects: 0, bytes: 0 },
      });
      expect(isRefusal(planWrites([write('z', { size: 10 })], current, over, true, undefined))).toBe(false);
    });
  });

  describe('quotas per owner', () => {
    it("hold each owner to their own quota: a guest's smaller one, a player's larger one", () => {
      const quotaOf = (owner: string) => (owner === BOB ? { objects: 2, bytes: 50, guest: true } : { objects: 10, bytes: 1000 });
      const both = [write('a', { size: 60 }), write('b', { ownerUid: BOB, size: 60 })];
      expect(planWrites(both, new Map(), new Map(), false, quotaOf)).toEqual({
        kind: 'quota',
        ownerUid: BOB,
        left: { objects: 2, bytes: 50 },
        guest: true,
      });
      expect(isRefusal(planWrites(both.slice(0, 1), new Map(), new Map(), false, quotaOf))).toBe(false);
    });
  });

  describe('a batch of deletes', () => {
    it('deletes what exists, ignores what does not (without a version), and counts the usage', () => {
      const plan = planDeletes(
        [write('a'), write('gone'), write('b', { version: V1 })],
        state([
          [write('a'), stored({ size: 10 })],
          [write('b'), stored({ size: 20 })],
        ]),
        false,
      );
      expect(plan).toEqual({
        deletes: [
          { ownerUid: ALICE, collection: 'saves', key: 'a' },
          { ownerUid: ALICE, collection: 'saves', key: 'b' },
        ],
        usage: new Map([[ALICE, { objects: -2, bytes: -30 }]]),
      });
    });

    it('refuses a stated version that does not hold, the object gone included, and protected objects for players', () => {
      const current = state([[write('a'), stored({ version: V1, permissionWrite: 'NONE' })]]);
      expect(planDeletes([write('gone', { version: V1 })], current, false)).toMatchObject({
        kind: 'conflict',
        conflicts: [{ index: 0, currentVersion: null }],
      });
      expect(planDeletes([write('a')], current, false)).toMatchObject({ kind: 'protected', index: 0 });
      expect(planDeletes([write('a', { version: V2 })], current, true)).toMatchObject({
        kind: 'conflict',
        conflicts: [{ currentVersion: V1 }],
      });
      expect(isRefusal(planDeletes([write('a', { version: V1 })], current, true))).toBe(false);
    });
  });

  it('finds an object a batch names twice', () => {
    expect(firstRepeat([write('a'), write('b'), write('a', { ownerUid: BOB }), write('b')])).toBe(3);
    expect(firstRepeat([write('a'), write('a', { collection: 'settings' })])).toBeUndefined();
  });
});
