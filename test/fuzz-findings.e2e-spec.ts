import { dataChecksum } from './support/data-checksum.js';
import { expectErrorBody } from './support/expectations.js';
import { TestApp } from './support/test-app.js';

/**
 * Each failure the fuzzer (test/fuzz.e2e-spec.ts) found, as a plain example, next to the fix in src/ it
 * led to. SECURITY.md ("Findings fixed") says what the cause was.
 */
describe('findings of the fuzzer', () => {
  let api: TestApp;
  let admin: string;
  let owner: { token: string; personaUid: string };

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
    const token = await api.signIn('findings-owner');
    const [persona] = (await api.get('/personas', { token })).body;
    owner = { token, personaUid: persona.uid };
  });

  afterAll(async () => {
    await api.close();
  });

  it('refuses a body nested thousands of levels deep with 400, where class-transformer overflowed the stack (500)', async () => {
    const item = (await api.post('/items', { name: 'Deep shield' }, { token: admin })).body.uid;
    const before = await dataChecksum(api.database);
    for (const payload of [
      `{"name":"x","uid":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
      `{"name":${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}}`,
    ]) {
      const response = await api.put(`/items/${item}`, payload, { token: admin });
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
      expect(response.body.errors).toEqual([{ field: 'body', message: 'nests deeper than 64 levels' }]);
    }
    expect(await dataChecksum(api.database)).toEqual(before);
  });

  it('still takes a progress value nested 60 levels deep (the limit is 64)', async () => {
    const value = JSON.parse(`${'{"a":'.repeat(60)}1${'}'.repeat(60)}`);
    const path = `/personas/${owner.personaUid}/archetypes/deep/skills/nest/progress`;
    expect((await api.post(path, { value }, { token: owner.token })).status).toBe(204);
    const tooDeep = JSON.parse(`${'{"a":'.repeat(64)}1${'}'.repeat(64)}`);
    expectErrorBody(await api.post(path, { value: tooDeep }, { token: owner.token }), 400, 'VALIDATION_FAILED');
  });

  it('refuses a NUL character (U+0000) in text, in JSON values and in filters with 400, where PostgreSQL failed the request (500)', async () => {
    const before = await dataChecksum(api.database);
    const refusals = [
      await api.post('/personas', '{"name":"Mira\\u0000"}', { token: owner.token }),
      await api.post('/achievements', '{"name":"First\\u0000blood"}', { token: admin }),
      await api.post('/items', '{"name":"Sword","stats":[{"name":"damage","value":"x\\u0000"}]}', { token: admin }),
      await api.post(`/personas/${owner.personaUid}/archetypes/a/skills/b/progress`, '{"value":{"note":"\\u0000"}}', {
        token: owner.token,
      }),
      await api.get('/achievements/count?name=like(a%00b)'),
      await api.get('/items?name=Sword%00', { token: admin }),
    ];
    for (const response of refusals) {
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
      expect(response.body.message).toContain('U+0000');
    }
    expect(await dataChecksum(api.database)).toEqual(before);
  });

  it("answers a URL that is not UTF-8 once decoded, or an over-long path parameter, with the JSON error body, not Fastify's", async () => {
    for (const url of ['/achievements/%ED%B0%80%ED%A0%80/unlock', '/items/%FF', `/items/${'x'.repeat(300)}`]) {
      const response = await api.get(url, { token: admin });
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
    }
  });

  it('refuses a list of nested records holding a list, where [[]] passed validation (500, or stored as it was)', async () => {
    const before = await dataChecksum(api.database);
    const refusals = [
      await api.post(
        '/inventories/transaction',
        { type: 'AWARD', personaOneUid: owner.personaUid, personaOneInventoryItems: [[]] },
        { token: admin },
      ),
      await api.post('/sessions', { numTeams: 1, teamSize: 1, teams: [[]] }, { token: owner.token }),
      await api.post('/tickets', { numTeams: 2, criteria: [[{ name: 'skill' }]], statistics: [[]] }, { token: owner.token }),
      await api.post('/items', { name: 'Odd sword', stats: [[]] }, { token: admin }),
    ];
    for (const response of refusals) {
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
      expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ message: 'must be a list of objects' })]));
    }
    expect(await dataChecksum(api.database)).toEqual(before);
  });
});
