import { randomUUID } from 'node:crypto';
import { TestApp, type TestResponse } from './support/test-app.js';
import type { CountBody, ErrorResponse, PersonaBody, SkillBody } from './support/api-types.js';
import { expectErrorBody, expectValidationError, ISO_MILLISECONDS, UUID_V4 } from './support/expectations.js';

/**
 * Skill progress per persona and archetype (docs/CONTRACT.md section 7, "Skill progress"): public reads,
 * owner-or-admin writes, numbers that add and other values that replace, and increments that are
 * never lost under concurrency.
 */

interface Player {
  token: string;
  personaUid: string;
}

const skillPath = (personaUid: string, archetypeUid: string, skillUid?: string) =>
  `/personas/${personaUid}/archetypes/${archetypeUid}/skills${skillUid === undefined ? '' : `/${skillUid}`}`;

describe('skill progress', () => {
  let api: TestApp;
  let admin: string;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    await api.close();
  });

  function addProgress(personaUid: string, archetypeUid: string, skillUid: string, body: unknown, token?: string) {
    return api.post<ErrorResponse>(`${skillPath(personaUid, archetypeUid, skillUid)}/progress`, body, { token });
  }

  /** AddProgress that must answer 204 with no body. */
  async function progress(player: Player, archetypeUid: string, skillUid: string, value: unknown): Promise<void> {
    const response = await addProgress(player.personaUid, archetypeUid, skillUid, { value }, player.token);
    expect(response.status).toBe(204);
    expect(response.body).toBe('');
  }

  /** The record as anyone reads it (no token: reads are public). */
  async function readSkill(personaUid: string, archetypeUid: string, skillUid: string): Promise<SkillBody> {
    const response = await api.get<SkillBody>(skillPath(personaUid, archetypeUid, skillUid));
    expect(response.status).toBe(200);
    return response.body;
  }

  async function storedRows(
    personaUid: string,
  ): Promise<Array<{ archetypeUid: string; skillUid: string; progress: unknown; version: number }>> {
    const { rows } = await api.database.query(
      'SELECT "archetypeUid", "skillUid", progress, version FROM skill_progress WHERE "personaUid" = $1 ORDER BY "archetypeUid", "skillUid"',
      [personaUid],
    );
    return rows;
  }

  describe('the eight routes', () => {
    it('creates the record on first progress (204, no body) and finds it with its fields and ETag', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      await progress(player, 'warrior', 'swordplay', 5);
      const response = await api.get<SkillBody>(skillPath(player.personaUid, 'warrior', 'swordplay'), { token: player.token });

      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe('"0"');
      expect(response.body).toEqual({
        uid: expect.stringMatching(UUID_V4),
        personaUid: player.personaUid,
        archetypeUid: 'warrior',
        skillUid: 'swordplay',
        progress: 5,
        enabled: true,
        dateCreated: expect.stringMatching(ISO_MILLISECONDS),
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
        version: 0,
      });
      expect(await storedRows(player.personaUid)).toEqual([{ archetypeUid: 'warrior', skillUid: 'swordplay', progress: 5, version: 0 }]);
    });

    it("lists and counts a persona's skills of one archetype, and of every archetype", async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'mage', 'fire', 1);
      await progress(player, 'mage', 'ice', 2);
      await progress(player, 'rogue', 'stealth', 3);

      const mage = await api.get<SkillBody[]>(skillPath(player.personaUid, 'mage'));
      const mageCount = await api.get<CountBody>(`${skillPath(player.personaUid, 'mage')}/count`);
      const all = await api.get<SkillBody[]>(`/personas/${player.personaUid}/skills`);
      const allCount = await api.get<CountBody>(`/personas/${player.personaUid}/skills/count`);

      expect(mage.status).toBe(200);
      expect(mage.body.map((skill) => [skill.archetypeUid, skill.skillUid, skill.progress])).toEqual([
        ['mage', 'fire', 1],
        ['mage', 'ice', 2],
      ]);
      expect(mageCount.status).toBe(200);
      expect(mageCount.body).toEqual({ count: 2 });
      expect(all.status).toBe(200);
      expect(all.body.map((skill) => `${skill.archetypeUid}/${skill.skillUid}`).sort()).toEqual(['mage/fire', 'mage/ice', 'rogue/stealth']);
      for (const skill of all.body) expect(skill.personaUid).toBe(player.personaUid);
      expect(allCount.status).toBe(200);
      expect(allCount.body).toEqual({ count: 3 });
      expect(all.body).toContainEqual(await readSkill(player.personaUid, 'rogue', 'stealth'));
    });

    it("lists nothing for another persona's skills: each persona's progress is its own", async () => {
      const [first, second] = [await api.newPlayerWithPersona('adventurer'), await api.newPlayerWithPersona('adventurer')];
      await progress(first, 'mage', 'fire', 1);

      const list = await api.get<SkillBody[]>(skillPath(second.personaUid, 'mage'));
      const count = await api.get<CountBody>(`/personas/${second.personaUid}/skills/count`);

      expect(list.status).toBe(200);
      expect(list.body).toEqual([]);
      expect(count.body).toEqual({ count: 0 });
    });

    it('answers 404 to FindById of a skill never started', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'druid', 'shapeshift', 1);

      expectErrorBody(await api.get(skillPath(player.personaUid, 'druid', 'herbalism')), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(skillPath(player.personaUid, 'ranger', 'shapeshift')), 404, 'NOT_FOUND');
    });

    it('deletes one skill with 200 and no body; it is then 404 and the others stay', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'cleric', 'heal', 4);
      await progress(player, 'cleric', 'smite', 2);

      const response = await api.delete(skillPath(player.personaUid, 'cleric', 'heal'), { token: player.token });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expectErrorBody(await api.get(skillPath(player.personaUid, 'cleric', 'heal')), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(skillPath(player.personaUid, 'cleric', 'heal'), { token: player.token }), 404, 'NOT_FOUND');
      expect((await readSkill(player.personaUid, 'cleric', 'smite')).progress).toBe(2);
      expect(await storedRows(player.personaUid)).toEqual([{ archetypeUid: 'cleric', skillUid: 'smite', progress: 2, version: 0 }]);
    });

    it('restarts a deleted skill from 0: a number added after the delete is the whole progress', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'bard', 'lute', 10);
      expect((await api.delete(skillPath(player.personaUid, 'bard', 'lute'), { token: player.token })).status).toBe(200);

      await progress(player, 'bard', 'lute', 3);

      expect(await readSkill(player.personaUid, 'bard', 'lute')).toMatchObject({ progress: 3, version: 0 });
    });

    it('truncates by archetype with 200 and no body, removing only that archetype of that persona', async () => {
      const [player, other] = [await api.newPlayerWithPersona('adventurer'), await api.newPlayerWithPersona('adventurer')];
      await progress(player, 'paladin', 'aura', 1);
      await progress(player, 'paladin', 'shield', 1);
      await progress(player, 'monk', 'fists', 1);
      await progress(other, 'paladin', 'aura', 7);

      const response = await api.delete(skillPath(player.personaUid, 'paladin'), { token: player.token });

      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expect((await api.get<SkillBody[]>(skillPath(player.personaUid, 'paladin'))).body).toEqual([]);
      expect((await api.get<{ count: number }>(`${skillPath(player.personaUid, 'paladin')}/count`)).body).toEqual({ count: 0 });
      expect(await storedRows(player.personaUid)).toEqual([{ archetypeUid: 'monk', skillUid: 'fists', progress: 1, version: 0 }]);
      expect((await readSkill(other.personaUid, 'paladin', 'aura')).progress).toBe(7);

      const again = await api.delete(skillPath(player.personaUid, 'paladin'), { token: player.token });
      expect(again.status).toBe(200);
      expect(again.body).toBe('');
    });
  });

  describe('what AddProgress does to the value', () => {
    it('adds numbers: 3 then 4 makes 7, and the version goes up by one', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      await progress(player, 'warrior', 'strength', 3);
      await progress(player, 'warrior', 'strength', 4);

      const skill = await readSkill(player.personaUid, 'warrior', 'strength');
      expect(skill).toMatchObject({ progress: 7, version: 1 });
      expect(Date.parse(skill.dateModified)).toBeGreaterThanOrEqual(Date.parse(skill.dateCreated));
    });

    it('adds 0.1 and 0.2 to exactly 0.3 (decimal arithmetic, not floating point)', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      await progress(player, 'alchemist', 'brewing', 0.1);
      await progress(player, 'alchemist', 'brewing', 0.2);

      expect((await readSkill(player.personaUid, 'alchemist', 'brewing')).progress).toBe(0.3);
      const [row] = await storedRows(player.personaUid);
      expect(row.progress).toBe(0.3);
    });

    it('adds negative and fractional numbers too', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      await progress(player, 'smith', 'forging', 10);
      await progress(player, 'smith', 'forging', -2.5);

      expect((await readSkill(player.personaUid, 'smith', 'forging')).progress).toBe(7.5);
    });

    it.each([
      ['a string', 'journeyman'],
      ['a boolean', true],
      ['false', false],
      ['an object', { tier: 2, perks: ['cleave'], unlocked: { at: '2026-01-01' } }],
      ['an empty string', ''],
    ])('replaces a number with %s, and replaces that again with the next value', async (_case, value) => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'warrior', 'rank', 12);

      await progress(player, 'warrior', 'rank', value);
      expect(await readSkill(player.personaUid, 'warrior', 'rank')).toMatchObject({ progress: value, version: 1 });

      await progress(player, 'warrior', 'rank', 'master');
      expect(await readSkill(player.personaUid, 'warrior', 'rank')).toMatchObject({ progress: 'master', version: 2 });
    });

    it('replaces a string with a number, then adds to that number', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'scholar', 'lore', 'novice');

      await progress(player, 'scholar', 'lore', 5);
      expect((await readSkill(player.personaUid, 'scholar', 'lore')).progress).toBe(5);

      await progress(player, 'scholar', 'lore', 2);
      expect(await readSkill(player.personaUid, 'scholar', 'lore')).toMatchObject({ progress: 7, version: 2 });
    });

    it('replaces an object with a number rather than adding to it', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'hunter', 'traps', { set: 3 });

      await progress(player, 'hunter', 'traps', 4);

      expect((await readSkill(player.personaUid, 'hunter', 'traps')).progress).toBe(4);
    });

    it('starts a new record with a string or an object as it is', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      await progress(player, 'bard', 'song', 'first verse');
      await progress(player, 'bard', 'dance', { steps: 4 });

      expect((await readSkill(player.personaUid, 'bard', 'song')).progress).toBe('first verse');
      expect((await readSkill(player.personaUid, 'bard', 'dance')).progress).toEqual({ steps: 4 });
    });
  });

  describe('who may read and write', () => {
    it('lets anyone read, without a token, on every read route', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'necromancer', 'raise', 2);

      const responses = [
        await api.get(skillPath(player.personaUid, 'necromancer')),
        await api.get(`${skillPath(player.personaUid, 'necromancer')}/count`),
        await api.get(skillPath(player.personaUid, 'necromancer', 'raise')),
        await api.get(`/personas/${player.personaUid}/skills`),
        await api.get(`/personas/${player.personaUid}/skills/count`),
      ];

      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
      expect(responses[2].body).toMatchObject({ skillUid: 'raise', progress: 2 });
      expect(responses[1].body).toEqual({ count: 1 });
    });

    it("lets another player read a persona's progress like a public profile", async () => {
      const [player, stranger] = [await api.newPlayerWithPersona('adventurer'), await api.newPlayerWithPersona('adventurer')];
      await progress(player, 'archer', 'aim', 9);

      const response = await api.get<SkillBody>(skillPath(player.personaUid, 'archer', 'aim'), { token: stranger.token });

      expect(response.status).toBe(200);
      expect(response.body.progress).toBe(9);
    });

    it('answers 401 to a read with a bad token', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'archer', 'aim', 1);

      for (const path of [
        skillPath(player.personaUid, 'archer'),
        `${skillPath(player.personaUid, 'archer')}/count`,
        skillPath(player.personaUid, 'archer', 'aim'),
        `/personas/${player.personaUid}/skills`,
        `/personas/${player.personaUid}/skills/count`,
      ]) {
        expectErrorBody(await api.get(path, { token: 'not-a-token' }), 401, 'UNAUTHORIZED');
      }
    });

    it('refuses anonymous AddProgress with 401 and records nothing', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      expectErrorBody(await addProgress(player.personaUid, 'thief', 'lockpick', { value: 1 }), 401, 'UNAUTHORIZED');
      expectErrorBody(await addProgress(player.personaUid, 'thief', 'lockpick', { value: 1 }, 'not-a-token'), 401, 'UNAUTHORIZED');

      expect(await storedRows(player.personaUid)).toEqual([]);
      expectErrorBody(await api.get(skillPath(player.personaUid, 'thief', 'lockpick')), 404, 'NOT_FOUND');
    });

    it("refuses another player's AddProgress, delete and truncate with 403 and changes nothing", async () => {
      const [player, stranger] = [await api.newPlayerWithPersona('adventurer'), await api.newPlayerWithPersona('adventurer')];
      await progress(player, 'thief', 'lockpick', 3);

      expectErrorBody(await addProgress(player.personaUid, 'thief', 'lockpick', { value: 100 }, stranger.token), 403, 'FORBIDDEN');
      expectErrorBody(await addProgress(player.personaUid, 'thief', 'pickpocket', { value: 1 }, stranger.token), 403, 'FORBIDDEN');
      expectErrorBody(await api.delete(skillPath(player.personaUid, 'thief', 'lockpick'), { token: stranger.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.delete(skillPath(player.personaUid, 'thief'), { token: stranger.token }), 403, 'FORBIDDEN');

      expect(await storedRows(player.personaUid)).toEqual([{ archetypeUid: 'thief', skillUid: 'lockpick', progress: 3, version: 0 }]);
    });

    it('refuses anonymous delete and truncate with 401 and changes nothing', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'thief', 'lockpick', 3);

      expectErrorBody(await api.delete(skillPath(player.personaUid, 'thief', 'lockpick')), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.delete(skillPath(player.personaUid, 'thief')), 401, 'UNAUTHORIZED');

      expect(await storedRows(player.personaUid)).toEqual([{ archetypeUid: 'thief', skillUid: 'lockpick', progress: 3, version: 0 }]);
    });

    it("lets the admin add progress to, delete and truncate any persona's skills", async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'knight', 'joust', 1);

      const added = await addProgress(player.personaUid, 'knight', 'joust', { value: 2 }, admin);
      expect(added.status).toBe(204);
      expect(added.body).toBe('');
      expect((await readSkill(player.personaUid, 'knight', 'joust')).progress).toBe(3);

      expect((await addProgress(player.personaUid, 'knight', 'ride', { value: 1 }, admin)).status).toBe(204);
      expect((await api.delete(skillPath(player.personaUid, 'knight', 'ride'), { token: admin })).status).toBe(200);
      expect((await api.delete(skillPath(player.personaUid, 'knight'), { token: admin })).status).toBe(200);
      expect(await storedRows(player.personaUid)).toEqual([]);
    });

    it('lets a player write for each of their own personas', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      const second = await api.post<PersonaBody>('/personas', { name: 'Alt' }, { token: player.token });
      expect(second.status).toBe(201);

      const response = await addProgress(second.body.uid, 'healer', 'mend', { value: 4 }, player.token);

      expect(response.status).toBe(204);
      expect((await readSkill(second.body.uid, 'healer', 'mend')).progress).toBe(4);
      expect(await storedRows(player.personaUid)).toEqual([]);
    });

    it('accepts anonymous AddProgress with 204 when ANONYMOUS_WRITES=true', async () => {
      const open = await TestApp.start({ ANONYMOUS_WRITES: 'true' });
      try {
        const token = await open.signIn('open-world-player');
        const [persona] = (await open.get<PersonaBody[]>('/personas', { token })).body;

        const response = await open.post(`${skillPath(persona.uid, 'explorer', 'maps')}/progress`, { value: 2 });
        const again = await open.post(`${skillPath(persona.uid, 'explorer', 'maps')}/progress`, { value: 3 });

        expect(response.status).toBe(204);
        expect(response.body).toBe('');
        expect(again.status).toBe(204);
        const skill = await open.get<SkillBody>(skillPath(persona.uid, 'explorer', 'maps'));
        expect(skill.body).toMatchObject({ progress: 5, version: 1 });
        expectErrorBody(await open.post(`${skillPath(randomUUID(), 'explorer', 'maps')}/progress`, { value: 1 }), 404, 'NOT_FOUND');
      } finally {
        await open.close();
      }
    });
  });

  describe('validation', () => {
    const huge = { notes: 'x'.repeat(17 * 1024) };

    it.each([
      ['no value', {}],
      ['a null value', { value: null }],
      ['an array', { value: [1, 2] }],
      ['an object larger than 16 KiB', { value: huge }],
      ['a string longer than 10000 characters', { value: 'y'.repeat(10_001) }],
    ])('refuses AddProgress with %s: 400 naming value, nothing recorded', async (_case, body) => {
      const player = await api.newPlayerWithPersona('adventurer');

      const response = await addProgress(player.personaUid, 'sage', 'wisdom', body, player.token);

      expectValidationError(response, 'value');
      expect(await storedRows(player.personaUid)).toEqual([]);
    });

    it('refuses an unknown field in the AddProgress body with 400', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      expectValidationError(await addProgress(player.personaUid, 'sage', 'wisdom', { value: 1, bonus: 2 }, player.token), 'bonus');
      expect(await storedRows(player.personaUid)).toEqual([]);
    });

    it('accepts an object just under 16 KiB', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      const value = { notes: 'z'.repeat(16 * 1024 - 20) };

      await progress(player, 'sage', 'journal', value);

      expect((await readSkill(player.personaUid, 'sage', 'journal')).progress).toEqual(value);
    });

    it.each([
      ['a space', 'war%20rior', 'archetypeUid'],
      ['129 characters', 'a'.repeat(129), 'archetypeUid'],
      ['a dollar sign', 'war$rior', 'archetypeUid'],
    ])('refuses an archetype id with %s with 400 on every route', async (_case, archetypeUid, field) => {
      const player = await api.newPlayerWithPersona('adventurer');

      expectValidationError(await addProgress(player.personaUid, archetypeUid, 'skill', { value: 1 }, player.token), field);
      expectValidationError(await api.get(skillPath(player.personaUid, archetypeUid)), field);
      expectValidationError(await api.get(`${skillPath(player.personaUid, archetypeUid)}/count`), field);
      expectValidationError(await api.get(skillPath(player.personaUid, archetypeUid, 'skill')), field);
      expectValidationError(await api.delete(skillPath(player.personaUid, archetypeUid, 'skill'), { token: player.token }), field);
      expectValidationError(await api.delete(skillPath(player.personaUid, archetypeUid), { token: player.token }), field);
      expect(await storedRows(player.personaUid)).toEqual([]);
    });

    it('refuses a skill id with a space or 129 characters with 400', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      expectValidationError(await addProgress(player.personaUid, 'ranger', 'long%20bow', { value: 1 }, player.token), 'skillUid');
      expectValidationError(await addProgress(player.personaUid, 'ranger', 's'.repeat(129), { value: 1 }, player.token), 'skillUid');
      expect(await storedRows(player.personaUid)).toEqual([]);
    });

    it('accepts ids of 128 characters drawn from A-Z a-z 0-9 _ . : -', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      const archetypeUid = `Mage_v2.0:fire-${'a'.repeat(113)}`;
      expect(archetypeUid).toHaveLength(128);

      await progress(player, archetypeUid, 'Fire.Ball:Rank-2_b', 1);

      expect(await readSkill(player.personaUid, archetypeUid, 'Fire.Ball:Rank-2_b')).toMatchObject({
        archetypeUid,
        skillUid: 'Fire.Ball:Rank-2_b',
        progress: 1,
      });
    });

    it('refuses a malformed persona uuid with 400 on every route', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      const persona = 'not-a-uuid';

      expectValidationError(await addProgress(persona, 'sage', 'wisdom', { value: 1 }, player.token), 'personaUid');
      expectValidationError(await api.get(skillPath(persona, 'sage')), 'personaUid');
      expectValidationError(await api.get(`${skillPath(persona, 'sage')}/count`), 'personaUid');
      expectValidationError(await api.get(skillPath(persona, 'sage', 'wisdom')), 'personaUid');
      expectValidationError(await api.delete(skillPath(persona, 'sage', 'wisdom'), { token: player.token }), 'personaUid');
      expectValidationError(await api.delete(skillPath(persona, 'sage'), { token: player.token }), 'personaUid');
      expectValidationError(await api.get(`/personas/${persona}/skills`), 'personaUid');
      expectValidationError(await api.get(`/personas/${persona}/skills/count`), 'personaUid');
    });

    it('answers 404 for an unknown persona on every route, and records nothing', async () => {
      const persona = randomUUID();

      expectErrorBody(await addProgress(persona, 'sage', 'wisdom', { value: 1 }, admin), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(skillPath(persona, 'sage')), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(`${skillPath(persona, 'sage')}/count`), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(skillPath(persona, 'sage', 'wisdom')), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(`/personas/${persona}/skills`), 404, 'NOT_FOUND');
      expectErrorBody(await api.get(`/personas/${persona}/skills/count`), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(skillPath(persona, 'sage', 'wisdom'), { token: admin }), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(skillPath(persona, 'sage'), { token: admin }), 404, 'NOT_FOUND');
      expect(await storedRows(persona)).toEqual([]);
    });
  });

  describe('numbers stay finite', () => {
    it.each([
      ['1e308 + 1e308', 1e308],
      ['-1e308 + -1e308', -1e308],
    ])('refuses %s with 400 naming value; the stored progress stays as it was', async (_case, value) => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'titan', 'might', value);

      const response = await addProgress(player.personaUid, 'titan', 'might', { value }, player.token);

      expectValidationError(response, 'value');
      expect(response.body.message).toMatch(/finite/);
      expect(await readSkill(player.personaUid, 'titan', 'might')).toMatchObject({ progress: value, version: 0 });
      expect(await storedRows(player.personaUid)).toEqual([{ archetypeUid: 'titan', skillUid: 'might', progress: value, version: 0 }]);
    });

    it('adds up to the largest finite number exactly, and takes a refused sum back down with a negative add', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'titan', 'endurance', Number.MAX_VALUE);
      await progress(player, 'titan', 'endurance', 0);

      expectValidationError(await addProgress(player.personaUid, 'titan', 'endurance', { value: 1e292 }, player.token), 'value');
      await progress(player, 'titan', 'endurance', -Number.MAX_VALUE);

      expect(await readSkill(player.personaUid, 'titan', 'endurance')).toMatchObject({ progress: 0, version: 2 });
    });

    it('still replaces a number near the limit with a string, and starts a fresh skill at any finite number', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'titan', 'rank', 1.5e308);

      await progress(player, 'titan', 'rank', 'legend');
      await progress(player, 'titan', 'fresh', -Number.MAX_VALUE);

      expect((await readSkill(player.personaUid, 'titan', 'rank')).progress).toBe('legend');
      expect((await readSkill(player.personaUid, 'titan', 'fresh')).progress).toBe(-Number.MAX_VALUE);
    });

    it.each([
      ['at the top', '{"value": 1e999}', 'value is a number beyond the finite range'],
      ['inside an object', '{"value": {"tier": 2, "xp": {"total": 1e999}}}', 'at xp.total'],
      ['inside a list in an object', '{"value": {"scores": [1, -1e999]}}', 'at scores.1'],
    ])('refuses a JSON number beyond the finite range %s with 400 naming value, nothing recorded', async (_case, body, where) => {
      const player = await api.newPlayerWithPersona('adventurer');

      const response = await addProgress(player.personaUid, 'titan', 'lore', body, player.token);

      expectValidationError(response, 'value');
      expect(response.body.message).toContain(where);
      expect(await storedRows(player.personaUid)).toEqual([]);
    });

    it('never stores a sum beyond the limit under concurrency: of 10 adds of 1e307 to 1e308, exactly 7 count', async () => {
      const player = await api.newPlayerWithPersona('adventurer');
      await progress(player, 'titan', 'fury', 1e308);

      const responses = await Promise.all(
        Array.from({ length: 10 }, () => addProgress(player.personaUid, 'titan', 'fury', { value: 1e307 }, player.token)),
      );

      expect(responses.map((response) => response.status).sort()).toEqual([...Array(7).fill(204), ...Array(3).fill(400)]);
      for (const refused of responses.filter((response) => response.status === 400)) expectValidationError(refused, 'value');
      expect(await readSkill(player.personaUid, 'titan', 'fury')).toMatchObject({ progress: 1.7e308, version: 7 });
      expect(await storedRows(player.personaUid)).toEqual([{ archetypeUid: 'titan', skillUid: 'fury', progress: 1.7e308, version: 7 }]);
    });
  });

  describe('list rules on the skill lists', () => {
    let player: Player;

    beforeAll(async () => {
      player = await api.newPlayerWithPersona('adventurer');
      for (const skillUid of ['charm', 'anvil', 'dagger', 'bow', 'eagle']) await progress(player, 'ranger', skillUid, 1);
      await progress(player, 'scout', 'compass', 1);
    });

    const skillUids = (response: TestResponse<SkillBody[]>) => response.body.map((skill) => skill.skillUid);

    it('limits and skips, while the count ignores limit and skip', async () => {
      const page = await api.get<SkillBody[]>(`${skillPath(player.personaUid, 'ranger')}?limit=2&skip=1&sort=skillUid`);
      const count = await api.get<CountBody>(`${skillPath(player.personaUid, 'ranger')}/count?limit=2&skip=1`);

      expect(page.status).toBe(200);
      expect(skillUids(page)).toEqual(['bow', 'charm']);
      expect(count.body).toEqual({ count: 5 });
    });

    it('sorts by skillUid ascending and descending, in every form', async () => {
      const ascending = await api.get<SkillBody[]>(`${skillPath(player.personaUid, 'ranger')}?sort=skillUid`);
      const descending = await api.get<SkillBody[]>(
        `${skillPath(player.personaUid, 'ranger')}?sort=${encodeURIComponent('{"skillUid":"DESC"}')}`,
      );
      const bracket = await api.get<SkillBody[]>(`/personas/${player.personaUid}/skills?sort[skillUid]=desc&limit=3`);

      expect(skillUids(ascending)).toEqual(['anvil', 'bow', 'charm', 'dagger', 'eagle']);
      expect(skillUids(descending)).toEqual(['eagle', 'dagger', 'charm', 'bow', 'anvil']);
      expect(skillUids(bracket)).toEqual(['eagle', 'dagger', 'compass']);
    });

    it('filters on skillUid and archetypeUid', async () => {
      const filtered = await api.get<SkillBody[]>(`/personas/${player.personaUid}/skills?skillUid=in(bow,compass)&sort=skillUid`);
      const byArchetype = await api.get<CountBody>(`/personas/${player.personaUid}/skills/count?archetypeUid=scout`);

      expect(skillUids(filtered)).toEqual(['bow', 'compass']);
      expect(byArchetype.body).toEqual({ count: 1 });
    });

    it('refuses a limit above 1000, an unknown sort field and an unknown filter with 400', async () => {
      expectValidationError(await api.get(`${skillPath(player.personaUid, 'ranger')}?limit=1001`), 'limit');
      expectValidationError(await api.get(`/personas/${player.personaUid}/skills?limit=0`), 'limit');
      expectValidationError(await api.get(`/personas/${player.personaUid}/skills?sort=progress`), 'sort.progress');
      expectValidationError(await api.get(`/personas/${player.personaUid}/skills/count?colour=red`), 'colour');
    });
  });

  describe('concurrency', () => {
    it('never loses an increment: 30 concurrent AddProgress of 1 make exactly 30, at version 29', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      const responses = await Promise.all(
        Array.from({ length: 30 }, () => addProgress(player.personaUid, 'berserker', 'rage', { value: 1 }, player.token)),
      );

      expect(responses.map((response) => response.status)).toEqual(Array(30).fill(204));
      expect(await readSkill(player.personaUid, 'berserker', 'rage')).toMatchObject({ progress: 30, version: 29 });
      expect(await storedRows(player.personaUid)).toEqual([{ archetypeUid: 'berserker', skillUid: 'rage', progress: 30, version: 29 }]);
    });

    it('adds concurrent increments on different skills independently', async () => {
      const player = await api.newPlayerWithPersona('adventurer');

      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          addProgress(player.personaUid, 'berserker', index % 2 === 0 ? 'rage' : 'roar', { value: 0.5 }, player.token),
        ),
      );

      expect(responses.every((response) => response.status === 204)).toBe(true);
      expect((await readSkill(player.personaUid, 'berserker', 'rage')).progress).toBe(5);
      expect((await readSkill(player.personaUid, 'berserker', 'roar')).progress).toBe(5);
    });
  });
});
