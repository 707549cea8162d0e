import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { TestApp } from './support/test-app.js';
import type { PersonaBody as Persona } from './support/api-types.js';
import { expectErrorBody, ISO_MILLISECONDS } from './support/expectations.js';

/** Personas (docs/CONTRACT.md section 6): a user's in-game characters, private to their owner and admins. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('personas', () => {
  let api: TestApp;
  let alice: string;
  let aliceUid: string;
  let bob: string;
  let bobUid: string;
  let admin: string;
  /** Alice's default persona (created at her first sign-in) and one she creates. */
  let aliceDefault: Persona;
  let aliceBold: Persona;

  beforeAll(async () => {
    api = await TestApp.start();
    alice = await api.signIn('alice');
    aliceUid = decodeJwt(alice).sub!;
    bob = await api.signIn('bob');
    bobUid = decodeJwt(bob).sub!;
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    await api?.close();
  });

  describe('listing', () => {
    it("lists the caller's default persona, and only the caller's", async () => {
      const response = await api.get<Persona[]>('/personas', { token: alice });
      expect(response.status).toBe(200);
      expect(response.body).toEqual([
        {
          uid: expect.stringMatching(UUID),
          userUid: aliceUid,
          name: 'alice',
          version: 0,
          dateCreated: expect.stringMatching(ISO_MILLISECONDS),
          dateModified: expect.stringMatching(ISO_MILLISECONDS),
        },
      ]);
      aliceDefault = response.body[0];

      const bobs = await api.get<Persona[]>('/personas', { token: bob });
      expect(bobs.status).toBe(200);
      expect(bobs.body).toEqual([expect.objectContaining({ userUid: bobUid, name: 'bob' })]);
    });

    it('needs a token', async () => {
      expectErrorBody(await api.get('/personas'), 401, 'UNAUTHORIZED');
    });
  });

  describe('creating', () => {
    it('creates a persona for the caller with 201, a new uid and version 0', async () => {
      const response = await api.post<Persona>('/personas', { name: 'Alice the Bold' }, { token: alice });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        uid: expect.stringMatching(UUID),
        userUid: aliceUid,
        name: 'Alice the Bold',
        version: 0,
        dateCreated: expect.stringMatching(ISO_MILLISECONDS),
        dateModified: expect.stringMatching(ISO_MILLISECONDS),
      });
      aliceBold = response.body;

      const list = await api.get<Persona[]>('/personas', { token: alice });
      expect(list.body.map((persona) => persona.uid)).toEqual([aliceDefault.uid, aliceBold.uid]);
      const { rows } = await api.database.query('SELECT "userUid", name, version FROM personas WHERE uid = $1', [aliceBold.uid]);
      expect(rows).toEqual([{ userUid: aliceUid, name: 'Alice the Bold', version: 0 }]);
    });

    it('ignores read-only fields sent back in the body', async () => {
      const sentUid = randomUUID();
      const response = await api.post<Persona>(
        '/personas',
        { name: 'Alice Again', uid: sentUid, version: 7, dateCreated: '2001-01-01T00:00:00.000Z' },
        { token: alice },
      );
      expect(response.status).toBe(201);
      expect(response.body).toEqual(expect.objectContaining({ name: 'Alice Again', userUid: aliceUid, version: 0 }));
      expect(response.body.uid).not.toBe(sentUid);
      expect(response.body.dateCreated).not.toBe('2001-01-01T00:00:00.000Z');
    });

    it('refuses a body without a name', async () => {
      const before = await api.get<Persona[]>('/personas', { token: bob });
      const response = await api.post('/personas', {}, { token: bob });
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
      expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name' })]));
      expect((await api.get<Persona[]>('/personas', { token: bob })).body).toHaveLength(before.body.length);
    });

    it('refuses an empty name, a name that is not text and a name over 100 characters', async () => {
      for (const name of ['', 42, 'x'.repeat(101)]) {
        const response = await api.post('/personas', { name }, { token: bob });
        expectErrorBody(response, 400, 'VALIDATION_FAILED');
        expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name' })]));
      }
    });

    it('refuses an unknown field', async () => {
      const response = await api.post('/personas', { name: 'Bob the Sneaky', userUid: aliceUid }, { token: bob });
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
      const { rows } = await api.database.query('SELECT uid FROM personas WHERE name = $1', ['Bob the Sneaky']);
      expect(rows).toEqual([]);
    });

    it('needs a token', async () => {
      expectErrorBody(await api.post('/personas', { name: 'Nobody' }), 401, 'UNAUTHORIZED');
    });
  });

  describe('finding one', () => {
    it("returns the caller's own persona with its version as ETag", async () => {
      const response = await api.get<Persona>(`/personas/${aliceBold.uid}`, { token: alice });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(aliceBold);
      expect(response.headers.etag).toBe('"0"');
    });

    it("answers 404, not 403, for another player's persona", async () => {
      const response = await api.get(`/personas/${aliceBold.uid}`, { token: bob });
      expectErrorBody(response, 404, 'NOT_FOUND');
    });

    it("lets an admin see anyone's persona", async () => {
      const response = await api.get<Persona>(`/personas/${aliceBold.uid}`, { token: admin });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(aliceBold);
    });

    it('answers 400 for a malformed id', async () => {
      expectErrorBody(await api.get('/personas/not-a-uuid', { token: alice }), 400, 'VALIDATION_FAILED');
    });

    it('answers 404 for an unknown id', async () => {
      expectErrorBody(await api.get(`/personas/${randomUUID()}`, { token: alice }), 404, 'NOT_FOUND');
    });
  });

  describe('list rules', () => {
    it("shows an admin everyone's personas", async () => {
      const response = await api.get<Persona[]>('/personas', { token: admin });
      expect(response.status).toBe(200);
      const owners = new Set(response.body.map((persona) => persona.userUid));
      expect(owners).toEqual(new Set([aliceUid, bobUid, decodeJwt(admin).sub]));
      expect(response.body.map((persona) => persona.uid)).toEqual(expect.arrayContaining([aliceDefault.uid, aliceBold.uid]));
    });

    it('pages with limit and skip', async () => {
      const all = await api.get<Persona[]>('/personas', { token: alice });
      expect(all.body.length).toBeGreaterThanOrEqual(3);
      const first = await api.get<Persona[]>('/personas?limit=1', { token: alice });
      expect(first.status).toBe(200);
      expect(first.body.map((persona) => persona.uid)).toEqual([all.body[0].uid]);
      const second = await api.get<Persona[]>('/personas?limit=1&skip=1', { token: alice });
      expect(second.body.map((persona) => persona.uid)).toEqual([all.body[1].uid]);
    });

    it('filters by name, case-insensitively with like()', async () => {
      const response = await api.get<Persona[]>('/personas?name=like(BOLD)', { token: alice });
      expect(response.status).toBe(200);
      expect(response.body.map((persona) => persona.uid)).toEqual([aliceBold.uid]);

      const exact = await api.get<Persona[]>(`/personas?name=${encodeURIComponent('Alice the Bold')}`, { token: alice });
      expect(exact.body.map((persona) => persona.uid)).toEqual([aliceBold.uid]);

      // A filter never widens what the caller may see.
      const bobs = await api.get<Persona[]>('/personas?name=like(alice)', { token: bob });
      expect(bobs.body).toEqual([]);
    });

    it('sorts newest first when asked, in the JSON and the bracket form', async () => {
      const oldestFirst = (await api.get<Persona[]>('/personas', { token: alice })).body.map((persona) => persona.uid);
      expect(oldestFirst.length).toBeGreaterThanOrEqual(3);
      for (const query of [`sort=${encodeURIComponent('{"dateCreated":"desc"}')}`, 'sort[dateCreated]=DESC']) {
        const response = await api.get<Persona[]>(`/personas?${query}`, { token: alice });
        expect(response.status).toBe(200);
        expect(response.body.map((persona) => persona.uid)).toEqual([...oldestFirst].reverse());
      }
    });

    it('refuses bad list parameters with 400', async () => {
      for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'skip=-1', 'colour=red', 'sort=colour', 'version=gt(abc)']) {
        const response = await api.get(`/personas?${query}`, { token: alice });
        expect({ query, status: response.status, code: response.body.code }).toEqual({ query, status: 400, code: 'VALIDATION_FAILED' });
      }
    });
  });

  describe('the limit per user (PERSONAS_PER_USER, 10 by default)', () => {
    const countOf = async (userUid: string) =>
      (await api.database.query<{ n: number }>('SELECT count(*)::int AS n FROM personas WHERE "userUid" = $1', [userUid])).rows[0].n;

    it('refuses the eleventh persona with 409 PERSONA_LIMIT stating the limit, and creates nothing', async () => {
      const player = await api.newPlayer('collector');
      // The first persona came with the first sign-in.
      for (let made = 1; made < 10; made++) {
        expect((await api.post('/personas', { name: `Alt ${made}` }, { token: player.token })).status).toBe(201);
      }
      const refused = await api.post('/personas', { name: 'One too many' }, { token: player.token });
      expectErrorBody(refused, 409, 'PERSONA_LIMIT');
      expect(refused.body.limit).toBe(10);
      expect(refused.body.message).toMatch(/10 personas/);
      expect(await countOf(player.uid)).toBe(10);
      expect((await api.get<Persona[]>('/personas', { token: player.token })).body).toHaveLength(10);
    });

    it('makes one persona, not several, of creations racing for the last place', async () => {
      const player = await api.newPlayer('racer');
      for (let made = 1; made < 9; made++) await api.post('/personas', { name: `Alt ${made}` }, { token: player.token });
      expect(await countOf(player.uid)).toBe(9);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, index) => api.post('/personas', { name: `Racer ${index}` }, { token: player.token })),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      for (const answer of answers.filter((one) => one.status === 409)) expectErrorBody(answer, 409, 'PERSONA_LIMIT');
      expect(await countOf(player.uid)).toBe(10);
    });

    it("counts each user's personas on their own", async () => {
      const other = await api.newPlayer('neighbour');
      expect((await api.post('/personas', { name: 'Second' }, { token: other.token })).status).toBe(201);
      expect(await countOf(other.uid)).toBe(2);
    });
  });
});
