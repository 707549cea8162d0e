import fc from 'fast-check';
import { type DataChecksum, dataChecksum } from './support/data-checksum.js';
import { expectErrorBody } from './support/expectations.js';
import { type FuzzRequest, fuzzRequest, type OpenApiDocument, type Operation, operationsOf, SchemaValues } from './support/fuzz.js';
import { TestApp, type TestResponse } from './support/test-app.js';

/**
 * Every operation of the OpenAPI document under generated hostile requests (test/support/fuzz.ts).
 * Properties: never a 5xx; every 4xx is the JSON error body; a refused request leaves every table as
 * it was (row counts and an md5 of the rows). A fixed seed makes `npm test` repeatable; `npm run
 * test:fuzz` runs longer (FUZZ_RUNS cases per operation, FUZZ_SEED to vary or replay).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
/** Fuzz only the operations whose `METHOD /path` contains this text (to replay a failure). */
const ONLY = process.env.FUZZ_ONLY;

/** Refusals that write on purpose, by contract. */
const WRITES_WHEN_REFUSED: Array<{ status: number; code: string; why: string }> = [
  // docs/CONTRACT.md section 7: a short quantity "is stored as FAILED": the record of the attempt is the point.
  { status: 409, code: 'INSUFFICIENT_QUANTITY', why: 'the FAILED transaction is kept' },
];

const ERROR_CODE = /^[A-Z][A-Z_]*$/;

interface Player {
  token: string;
  uid: string;
  personaUid: string;
}

describe('fuzzing every operation of the OpenAPI document', () => {
  let api: TestApp;
  let operations: Operation[];
  let document: OpenApiDocument;
  let players: Record<'admin' | 'owner' | 'other', Player>;
  /** A real record of each resource, by collection path; made again whenever fuzzing removed one. */
  let records: Record<string, string> = {};

  const ok = async (response: Promise<TestResponse>, status = 201) => {
    const answer = await response;
    if (answer.status !== status) throw new Error(`fixture failed with ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  const player = (subject: string): Promise<Player> => api.signInWithPersona(subject);

  async function makeRecords(): Promise<void> {
    const { admin, owner, other } = players;
    const create = async (path: string, body: unknown, who: Player = admin) =>
      (await ok(api.post(path, body, { token: who.token }))).uid as string;
    const item = await create('/items', { name: 'Fuzz potion' });
    const award = await ok(
      api.post(
        '/inventories/transaction',
        { type: 'AWARD', personaOneUid: owner.personaUid, personaOneInventoryItems: [{ itemUid: item, quantity: 10 }] },
        { token: admin.token },
      ),
      200,
    );
    await ok(
      api.post(
        '/inventories/transaction',
        { type: 'AWARD', personaOneUid: other.personaUid, personaOneInventoryItems: [{ itemUid: item, quantity: 10 }] },
        { token: admin.token },
      ),
      200,
    );
    const trade = await ok(
      api.post(
        '/inventories/transaction',
        {
          personaOneUid: owner.personaUid,
          personaTwoUid: other.personaUid,
          personaOneInventoryItems: [{ itemUid: item, quantity: 1 }],
          personaTwoInventoryItems: [{ itemUid: item, quantity: 1 }],
        },
        { token: owner.token },
      ),
      200,
    );
    await ok(
      api.post(`/personas/${owner.personaUid}/archetypes/warrior/skills/swordplay/progress`, { value: 3 }, { token: owner.token }),
      204,
    );
    // The owner holds one queue place: tickets fuzzing queued them on would refuse the fixture's.
    await api.database.query(`DELETE FROM tickets WHERE users @> ARRAY[$1]::uuid[]`, [owner.uid]);
    records = {
      '/personas': owner.personaUid,
      '/items': item,
      '/inventories': award.personaOneInventoryItemsAfter[0].uid,
      '/transactions': trade.uid,
      '/sessions': await create('/sessions', { numTeams: 2, teamSize: 2, password: 'fuzz-password' }, owner),
      '/tickets': await create('/tickets', { numTeams: 2 }, owner),
      '/assets/media': await create('/assets/media', {
        name: 'Fuzz art',
        files: { default: { mimetype: 'image/png', name: 'a.png', uri: 'https://cdn.example.com/a.png' } },
      }),
      '/assets/text': await create('/assets/text', { name: 'Fuzz text', text: { default: 'Hello', pt: 'Olá' } }),
      '/achievements': await create('/achievements', { name: 'Fuzz badge' }),
    };
  }

  const TABLES: Record<string, string> = {
    '/items': 'items',
    '/inventories': 'inventory_items',
    '/transactions': 'transactions',
    '/sessions': 'sessions',
    '/tickets': 'tickets',
    '/assets/media': 'media_assets',
    '/assets/text': 'text_assets',
    '/achievements': 'achievements',
  };

  /** Makes the records again when fuzzing deleted one, or settled the pending trade. */
  async function ensureRecords(): Promise<void> {
    if (Object.keys(records).length > 0) {
      const checks = Object.entries(TABLES).map(
        ([collection, table]) => `(SELECT count(*) FROM "${table}" WHERE uid = '${records[collection]}')`,
      );
      const { rows } = await api.database.query<{ present: number; pending: number; progress: number }>(
        `SELECT (${checks.join(' + ')})::int AS present,
                (SELECT count(*) FROM transactions WHERE uid = $1 AND status = 'PENDING')::int AS pending,
                (SELECT count(*) FROM skill_progress WHERE "personaUid" = $2)::int AS progress`,
        [records['/transactions'], players.owner.personaUid],
      );
      if (rows[0].present === checks.length && rows[0].pending === 1 && rows[0].progress > 0) return;
    }
    await makeRecords();
  }

  const SUBJECTS = { admin: 'admin', owner: 'fuzz-owner', other: 'fuzz-other' } as const;

  /**
   * Signs a player in again when fuzzing signed them out (logout, logout-all, a session revoked) or
   * banned them, and puts the new token where the old one was among the fuzzer's Authorization headers.
   */
  async function ensurePlayers(authorizations: string[]): Promise<void> {
    for (const name of ['admin', 'owner', 'other'] as const) {
      const stale = players[name];
      if ((await api.get('/personas', { token: stale.token })).status === 200) continue;
      if (name !== 'admin') await ok(api.post(`/users/${stale.uid}/unban`, undefined, { token: players.admin.token }), 200);
      const token = await api.signIn(SUBJECTS[name]);
      players[name] = { ...stale, token };
      authorizations.forEach((header, index) => (authorizations[index] = header.replace(stale.token, token)));
    }
  }

  beforeAll(async () => {
    api = await TestApp.start();
    players = { admin: await player(SUBJECTS.admin), owner: await player(SUBJECTS.owner), other: await player(SUBJECTS.other) };
    document = (await api.get('/docs-json')).body;
    operations = operationsOf(document);
  });

  afterAll(async () => {
    await api.close();
  });

  /** Checks one answer against the properties; returns the problem, if any. */
  function problemWith(response: TestResponse, before: DataChecksum, after: DataChecksum | undefined): string | undefined {
    if (response.status >= 500) return `answered ${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`;
    if (response.status >= 400) {
      try {
        expectErrorBody(response, response.status, String(response.body?.code));
        expect(response.body.code).toMatch(ERROR_CODE);
      } catch (error) {
        return `answered ${response.status} without the JSON error body: ${(error as Error).message.slice(0, 600)}`;
      }
      const exempt = WRITES_WHEN_REFUSED.some(({ status, code }) => status === response.status && code === response.body.code);
      if (!exempt && JSON.stringify(after) !== JSON.stringify(before)) {
        const changed = Object.keys(before).filter((table) => JSON.stringify(before[table]) !== JSON.stringify(after?.[table]));
        return `refused with ${response.status} ${response.body.code}, yet changed ${changed.join(', ')}`;
      }
    }
    return undefined;
  }

  async function send(request: FuzzRequest): Promise<TestResponse> {
    const response = await api.app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: request.headers,
      payload: request.payload,
    });
    let body: unknown = response.body;
    if (String(response.headers['content-type'] ?? '').includes('json') && response.body !== '') {
      try {
        body = response.json();
      } catch {
        body = response.body;
      }
    }
    const result = { status: response.statusCode, body, headers: response.headers };
    TestApp.checkContract(request.method, request.url, result);
    return result;
  }

  /** The request, with long strings cut short for the report. */
  function summary(request: FuzzRequest | undefined): string {
    return JSON.stringify(request, (_key, value: unknown) =>
      typeof value === 'string' && value.length > 160 ? `${value.slice(0, 120)}…(${value.length} characters)` : value,
    );
  }

  it('has operations to fuzz: every route of the document', () => {
    expect(operations.length).toBe(Object.values(document.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0));
    expect(operations.length).toBeGreaterThanOrEqual(70);
  });

  it(
    'answers hostile requests with a 4xx JSON error body, never a 5xx, and a refused request changes no data',
    async () => {
      const { admin, owner, other } = players;
      const values = new SchemaValues(document, () => [...Object.values(records), admin.uid, owner.uid, other.uid, other.personaUid]);
      const targets = {
        values,
        authorizations: [
          `jwt ${admin.token}`,
          `jwt ${admin.token}`,
          `Bearer ${admin.token}`,
          `jwt ${owner.token}`,
          `jwt ${owner.token}`,
          `jwt ${other.token}`,
          '',
          'jwt not.a.token',
        ],
        pathValue: (operation: Operation, name: string): string | undefined => {
          if (name === 'personaUid') return owner.personaUid;
          if (name === 'archetypeUid') return 'warrior';
          if (name === 'skillUid') return 'swordplay';
          return records[operation.path.slice(0, operation.path.indexOf('/{'))];
        },
      };

      const failures: string[] = [];
      const statuses = new Map<number, number>();
      let cases = 0;
      let known: DataChecksum | undefined;
      for (const [index, operation] of operations.entries()) {
        if (ONLY && !operation.route.includes(ONLY)) continue;
        await ensurePlayers(targets.authorizations);
        await ensureRecords();
        known = undefined;
        const result = await fc.check(
          fc.asyncProperty(fuzzRequest(operation, targets), async (request) => {
            cases += 1;
            // After a refused request the data is as it was before it (nothing else writes): no need to read it again.
            const before = known ?? (await dataChecksum(api.database));
            known = undefined;
            const response = await send(request);
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            const after = response.status >= 400 ? await dataChecksum(api.database) : undefined;
            const problem = problemWith(response, before, after);
            if (problem) throw new Error(problem);
            known = after;
          }),
          { seed: SEED + index, numRuns: RUNS },
        );
        if (result.failed) {
          const [request] = result.counterexample ?? [];
          failures.push(
            `${operation.route}: ${(result.errorInstance as Error | undefined)?.message ?? 'failed'}\n` +
              `  request: ${summary(request)}\n` +
              `  replay: FUZZ_SEED=${SEED} FUZZ_ONLY='${operation.route}' (seed ${result.seed}, path "${result.counterexamplePath}")`,
          );
        }
      }
      if (process.env.FUZZ_RUNS) {
        const answers = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`);
        process.stdout.write(`fuzz: ${cases} requests, seed ${SEED}, ${RUNS} per operation; answers ${answers.join(' ')}\n`);
      }
      expect(failures).toEqual([]);
      if (!ONLY) expect(cases).toBeGreaterThanOrEqual(operations.length * RUNS);
    },
    Math.max(300_000, RUNS * 70 * 100),
  );
});
