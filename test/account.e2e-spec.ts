import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { AccountBody, AuditEntryBody, PlayerSessionBody, TokenBody, UserAccountBody } from './support/api-types.js';
import { CapturedLogs } from './support/captured-logs.js';
import { expectErrorBody, expectValidationError } from './support/expectations.js';
import { TestApp } from './support/test-app.js';

/**
 * Guest sign-in on a device, and linking it to a real account later (issue 30): what a player does
 * with a device id and an identity provider, what an admin sees and removes, and what neither can get
 * wrong (another user's identity, the last identity, a banned account, a race of first sign-ins). The
 * cross-instance side (an unlinked device's sessions refused on every instance within a second) is in
 * the fault suite.
 */
describe('guest sign-in on a device, and linking', () => {
  let api: TestApp;
  let admin: string;
  const logs = new CapturedLogs();

  const signInDevice = (deviceId: unknown, create?: unknown) =>
    api.post<TokenBody>('/auth/device', create === undefined ? { deviceId } : { deviceId, create });
  const accountOf = (token: string) => api.found<AccountBody>('/account', token);
  const works = async (token: string) => (await api.get('/personas', { token })).status;
  const linkIdp1 = async (token: string, subject: string) =>
    api.post<AccountBody>('/account/link/idp1', { token: await api.providerToken(subject) }, { token });
  const linkDevice = (token: string, deviceId: string) => api.post<AccountBody>('/account/link/device', { deviceId }, { token });
  const unlink = (token: string, provider: string, body?: unknown) => api.post<AccountBody>(`/account/unlink/${provider}`, body, { token });
  const auditOf = async (userUid: string) => (await api.get<AuditEntryBody[]>(`/users/${userUid}/audit`, { token: admin })).body;
  /** What the database holds of these users: a refused request must leave it as it was. */
  const rowsOf = async (...userUids: string[]) => ({
    users: (await api.database.query(`SELECT * FROM users WHERE uid = ANY($1::uuid[]) ORDER BY uid`, [userUids])).rows,
    identities: (await api.database.query(`SELECT * FROM user_identities WHERE "userUid" = ANY($1::uuid[]) ORDER BY uid`, [userUids])).rows,
    personas: (await api.database.query(`SELECT * FROM personas WHERE "userUid" = ANY($1::uuid[]) ORDER BY uid`, [userUids])).rows,
  });

  beforeAll(async () => {
    api = await TestApp.start({ ADMIN_USERS: 'idp1:admin,idp1:ops-lead' }, { logs });
    admin = await api.signIn('admin');
  });
  afterAll(() => api?.close());

  describe('signing in with a device id', () => {
    it('creates an account with a default persona the first time, and signs in to the same one after', async () => {
      const deviceId = randomUUID();
      const first = await signInDevice(deviceId);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        token: expect.any(String),
        refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        expiresIn: 3600,
      });
      const uid = decodeJwt(first.body.token).sub!;
      expect(decodeJwt<{ roles: string[] }>(first.body.token).roles).toEqual(['user']);
      expect(await api.found('/personas', first.body.token)).toEqual([expect.objectContaining({ userUid: uid, name: 'Guest' })]);

      const again = await signInDevice(deviceId, false);
      expect(again.status).toBe(200);
      expect(decodeJwt(again.body.token).sub).toBe(uid);
      expect(decodeJwt<{ sid: string }>(again.body.token).sid).not.toBe(decodeJwt<{ sid: string }>(first.body.token).sid);
      expect(await api.found('/personas', again.body.token)).toHaveLength(1);

      expect(await accountOf(again.body.token)).toEqual({
        uid,
        name: null,
        dateCreated: expect.any(String),
        identities: [{ provider: 'device', subject: null, dateCreated: expect.any(String) }],
      });
      const sessions = await api.found<PlayerSessionBody[]>('/auth/sessions', again.body.token);
      expect(sessions.map(({ provider }) => provider)).toEqual(['device', 'device']);
      // The same player session rules as the providers': the refresh token rotates.
      const refreshed = await api.post<TokenBody>('/auth/refresh', { refreshToken: first.body.refreshToken });
      expect(refreshed.status).toBe(200);
      expect(decodeJwt(refreshed.body.token).sub).toBe(uid);
      expect((await api.post('/auth/refresh', { refreshToken: first.body.refreshToken })).status).toBe(409);
    });

    it('answers 404 NO_SUCH_ACCOUNT to an unknown device with create: false, and writes nothing to say so', async () => {
      const tables = ['users', 'user_identities', 'personas', 'auth_sessions', 'auth_refresh_tokens', 'auth_audit'];
      const before = await Promise.all(tables.map((table) => api.countRows(table)));
      // A SHARE lock lets reads through and holds every write back, even one that would change no row.
      const lock = await api.database.connect();
      try {
        await lock.query('BEGIN');
        await lock.query(`LOCK TABLE ${tables.join(', ')} IN SHARE MODE`);
        for (let guess = 0; guess < 5; guess++) expectErrorBody(await signInDevice(randomUUID(), false), 404, 'NO_SUCH_ACCOUNT');
      } finally {
        await lock.query('ROLLBACK');
        lock.release();
      }
      expect(await Promise.all(tables.map((table) => api.countRows(table)))).toEqual(before);
    });

    it('refuses a malformed device id or body with 400 naming the field, and creates nothing', async () => {
      const users = await api.countRows('users');
      expectValidationError(await signInDevice('x'.repeat(15)), 'deviceId');
      expectValidationError(await signInDevice('x'.repeat(129)), 'deviceId');
      expectValidationError(await signInDevice(1234567890123456), 'deviceId');
      expectValidationError(await signInDevice(null), 'deviceId');
      expectValidationError(await signInDevice({ id: randomUUID() }), 'deviceId');
      expectValidationError(await signInDevice([randomUUID()]), 'deviceId');
      expectValidationError(await signInDevice(`${randomUUID()}\n`), 'deviceId');
      expectValidationError(await signInDevice(`${randomUUID()}é`), 'deviceId');
      expectValidationError(await api.post('/auth/device', {}), 'deviceId');
      expectValidationError(await signInDevice(randomUUID(), 'false'), 'create');
      expectValidationError(await signInDevice(randomUUID(), null), 'create');
      expectValidationError(await api.post('/auth/device', { deviceId: randomUUID(), password: 'x' }), 'password');
      expectErrorBody(await api.post('/auth/device', '[]'), 400, 'VALIDATION_FAILED');
      expect(await api.countRows('users')).toBe(users);
      // 16 and 128 printable characters are fine.
      expect((await signInDevice('0123456789abcdef')).status).toBe(200);
      expect((await signInDevice(' ~'.repeat(64))).status).toBe(200);
    });

    it('makes exactly one account of 20 first sign-ins of one device at once', async () => {
      const deviceId = randomUUID();
      const answers = await Promise.all(Array.from({ length: 20 }, () => signInDevice(deviceId)));
      expect(answers.map(({ status }) => status)).toEqual(Array(20).fill(200));
      const uids = new Set(answers.map(({ body }) => decodeJwt(body.token).sub!));
      expect(uids.size).toBe(1);
      const [uid] = uids;
      const { users, identities, personas } = await rowsOf(uid);
      expect([users.length, identities.length, personas.length]).toEqual([1, 1, 1]);
      const signIns = (await auditOf(uid)).filter(({ event }) => event === 'sign-in');
      expect(signIns).toHaveLength(20);
      expect(signIns.filter(({ detail }) => detail?.created === true)).toHaveLength(1);
    });

    it('keeps 50 sessions per user: the 51st sign-in ends the oldest, here and on another instance', async () => {
      const other = await TestApp.start({ DATABASE_URL: api.databaseUrl });
      try {
        const oldest = await api.signInDevice();
        for (let count = 2; count <= 50; count++) await api.signInDevice(oldest.deviceId);
        expect(await works(oldest.token)).toBe(200);
        expect((await other.get('/personas', { token: oldest.token })).status).toBe(200);
        const newest = await api.signInDevice(oldest.deviceId);
        expect(await works(oldest.token)).toBe(401);
        expect(await works(newest.token)).toBe(200);
        // The other instance hears of it from the sign-in's own NOTIFY.
        let status = 200;
        for (let poll = 0; poll < 100 && status === 200; poll++) {
          status = (await other.get('/personas', { token: oldest.token })).status;
          if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(status).toBe(401);
        expect(await api.found<PlayerSessionBody[]>('/auth/sessions', newest.token)).toHaveLength(50);
        expect((await api.post('/auth/refresh', { refreshToken: oldest.refreshToken })).status).toBe(401);
      } finally {
        await other.close();
      }
    });

    it('keeps the device id secret: stored only as a keyed hash, never answered, audited or logged', async () => {
      const mark = logs.mark();
      const deviceId = `secret-device-${randomUUID()}`;
      const session = await api.signInDevice(deviceId);
      await accountOf(session.token);
      const user = await api.found<UserAccountBody>(`/users/${session.uid}`, admin);
      const audit = await auditOf(session.uid);
      const { rows } = await api.database.query(`SELECT subject FROM user_identities WHERE "userUid" = $1`, [session.uid]);
      expect(rows).toEqual([{ subject: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) }]);
      const stored = rows[0].subject as string;
      for (const text of [
        JSON.stringify(user),
        JSON.stringify(audit),
        JSON.stringify(await accountOf(session.token)),
        logs.text().slice(0),
      ]) {
        expect(text).not.toContain(deviceId);
        expect(text).not.toContain(stored);
      }
      expect(logs.since(mark).length).toBeGreaterThan(0);
      expect(user).toMatchObject({ provider: 'device', subject: null, identities: [{ provider: 'device', subject: null }] });
      expect(audit).toEqual([
        expect.objectContaining({ event: 'sign-in', outcome: 'success', detail: { provider: 'device', created: true } }),
      ]);
    });
  });

  describe('linking', () => {
    it('keeps the account on a new machine: device, then idp1, then idp1 alone signs in to the same user and progress', async () => {
      const guest = await api.signInDevice();
      const [persona] = await api.found<Array<{ uid: string }>>('/personas', guest.token);
      const item = await api.created<{ uid: string }>('/items', { name: 'Guest sword' }, admin);
      const award = {
        type: 'AWARD',
        personaOneUid: persona.uid,
        personaOneInventoryItems: [{ itemUid: item.uid, quantity: 3 }],
      };
      expect((await api.post('/inventories/transaction', award, { token: admin })).status).toBe(200);
      const skill = `/personas/${persona.uid}/archetypes/warrior/skills/swordplay`;
      expect((await api.post(`${skill}/progress`, { value: 7 }, { token: guest.token })).status).toBe(204);

      const linked = await linkIdp1(guest.token, 'linked-alice');
      expect(linked.status).toBe(200);
      expect(linked.body).toEqual({
        uid: guest.uid,
        name: null,
        dateCreated: expect.any(String),
        identities: [
          { provider: 'device', subject: null, dateCreated: expect.any(String) },
          { provider: 'idp1', subject: 'linked-alice', dateCreated: expect.any(String) },
        ],
      });

      // Another machine: nothing but the idp1 account.
      const elsewhere = await api.openSession('linked-alice');
      expect(decodeJwt(elsewhere.token).sub).toBe(guest.uid);
      expect(await api.found('/personas', elsewhere.token)).toEqual([expect.objectContaining({ uid: persona.uid })]);
      expect(await api.found('/inventories', elsewhere.token)).toEqual([expect.objectContaining({ itemUid: item.uid, quantity: 3 })]);
      expect(await api.found(skill, elsewhere.token)).toMatchObject({ progress: 7 });
      // The device still signs in to it too.
      expect(decodeJwt((await api.signInDevice(guest.deviceId)).token).sub).toBe(guest.uid);
      expect((await auditOf(guest.uid)).map(({ event }) => event)).toEqual(['sign-in', 'sign-in', 'identity-linked', 'sign-in']);
    });

    it('links a device to a provider account, and fills the account name from a provider it links', async () => {
      const player = await api.signInPlayer('linking-bob');
      const deviceId = randomUUID();
      expect((await linkDevice(player.token, deviceId)).status).toBe(200);
      expect(decodeJwt((await api.signInDevice(deviceId)).token).sub).toBe(player.uid);

      const guest = await api.signInDevice();
      const provider = await api.providerToken('named-carol', { name: 'Carol', email: 'carol@example.com' });
      const linked = await api.post<AccountBody>('/account/link/idp1', { token: provider }, { token: guest.token });
      expect(linked.body.name).toBe('Carol');
    });

    it('refuses an identity of another account with 409 IDENTITY_IN_USE, naming nobody and changing nothing', async () => {
      const owner = await api.signInDevice();
      await linkIdp1(owner.token, 'taken-dave');
      const other = await api.signInDevice();
      const before = await rowsOf(owner.uid, other.uid);
      for (const refused of [await linkDevice(other.token, owner.deviceId), await linkIdp1(other.token, 'taken-dave')]) {
        expectErrorBody(refused, 409, 'IDENTITY_IN_USE');
        expect(JSON.stringify(refused.body)).not.toContain(owner.uid);
      }
      // A provider whose player has never signed in is fine; one with a game account of its own is taken.
      await api.signIn('has-own-account');
      expectErrorBody(await linkIdp1(other.token, 'has-own-account'), 409, 'IDENTITY_IN_USE');
      expect(await rowsOf(owner.uid, other.uid)).toEqual(before);
      expect((await auditOf(other.uid)).map(({ event }) => event)).toEqual(['sign-in']);
    });

    it('links each identity once: again changes nothing; a second idp1, or an eleventh device, is 409 CONFLICT', async () => {
      const guest = await api.signInDevice();
      expect((await linkIdp1(guest.token, 'once-erin')).status).toBe(200);
      const before = await rowsOf(guest.uid);
      expect((await linkIdp1(guest.token, 'once-erin')).body.identities).toHaveLength(2);
      expect((await linkDevice(guest.token, guest.deviceId)).status).toBe(200);
      expect(await rowsOf(guest.uid)).toEqual(before);
      expectErrorBody(await linkIdp1(guest.token, 'once-frank'), 409, 'CONFLICT');

      for (let device = 1; device < 10; device++) expect((await linkDevice(guest.token, randomUUID())).status).toBe(200);
      const eleventh = await linkDevice(guest.token, randomUUID());
      expectErrorBody(eleventh, 409, 'CONFLICT');
      expect((eleventh.body as unknown as { message: string }).message).toMatch(/10 devices/);
      expect((await accountOf(guest.token)).identities.filter(({ provider }) => provider === 'device')).toHaveLength(10);
    });

    it('gives one of two players linking the same device at once the device, and the other 409', async () => {
      const [first, second] = await Promise.all([api.signInDevice(), api.signInDevice()]);
      const deviceId = randomUUID();
      const answers = await Promise.all([linkDevice(first.token, deviceId), linkDevice(second.token, deviceId)]);
      expect(answers.map(({ status }) => status).sort()).toEqual([200, 409]);
      const { rows } = await api.database.query(
        `SELECT count(*)::int AS n FROM user_identities WHERE provider = 'device' AND "userUid" = ANY($1::uuid[])`,
        [[first.uid, second.uid]],
      );
      expect(rows[0].n).toBe(3);
    });

    it('refuses a bad provider token (401) or body (400), changing nothing', async () => {
      const guest = await api.signInDevice();
      const before = await rowsOf(guest.uid);
      expectErrorBody(await api.post('/account/link/idp1', { token: 'not-a-jwt' }, { token: guest.token }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/account/link/idp1', { token: guest.token }, { token: guest.token }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/account/link/idp2', { token: 'whatever' }, { token: guest.token }), 401, 'UNAUTHORIZED');
      expectValidationError(await api.post('/account/link/idp1', {}, { token: guest.token }), 'token');
      expectValidationError(await api.post('/account/link/idp1', { token: 42 }, { token: guest.token }), 'token');
      expectValidationError(await linkDevice(guest.token, 'short'), 'deviceId');
      expectErrorBody(await api.post('/account/link/idp1', { token: await api.providerToken('anonymous-link') }), 401, 'UNAUTHORIZED');
      expect(await rowsOf(guest.uid)).toEqual(before);
    });
  });

  describe('unlinking', () => {
    it('refuses to unlink the last identity (409 LAST_IDENTITY), and one the account lacks (404)', async () => {
      const guest = await api.signInDevice();
      const before = await rowsOf(guest.uid);
      expectErrorBody(await unlink(guest.token, 'device', { deviceId: guest.deviceId }), 409, 'LAST_IDENTITY');
      expectErrorBody(await unlink(guest.token, 'device', { deviceId: randomUUID() }), 404, 'NOT_FOUND');
      expectErrorBody(await unlink(guest.token, 'idp1'), 404, 'NOT_FOUND');
      expectValidationError(await unlink(guest.token, 'device'), 'deviceId');
      expectValidationError(await unlink(guest.token, 'idp1', { deviceId: guest.deviceId }), 'deviceId');
      expectValidationError(await unlink(guest.token, 'steam'), 'provider');
      expect(await rowsOf(guest.uid)).toEqual(before);

      const player = await api.signInPlayer('last-identity-gina');
      expectErrorBody(await unlink(player.token, 'idp1'), 409, 'LAST_IDENTITY');
    });

    it('ends the sessions an unlinked device opened, and only those; the device then has no account', async () => {
      const guest = await api.signInDevice();
      const second = await api.signInDevice(guest.deviceId);
      await linkIdp1(guest.token, 'unlinking-hank');
      const provider = await api.openSession('unlinking-hank');

      const unlinked = await unlink(provider.token, 'device', { deviceId: guest.deviceId });
      expect(unlinked.status).toBe(200);
      expect(unlinked.body.identities).toEqual([expect.objectContaining({ provider: 'idp1', subject: 'unlinking-hank' })]);
      expect(await works(guest.token)).toBe(401);
      expect(await works(second.token)).toBe(401);
      expect((await api.post('/auth/refresh', { refreshToken: second.refreshToken })).status).toBe(401);
      expect(await works(provider.token)).toBe(200);
      expectErrorBody(await signInDevice(guest.deviceId, false), 404, 'NO_SUCH_ACCOUNT');
      // Signing in with it again makes a new guest.
      expect((await api.signInDevice(guest.deviceId)).uid).not.toBe(guest.uid);

      const audit = await auditOf(guest.uid);
      expect(audit.find(({ event }) => event === 'identity-unlinked')).toMatchObject({
        outcome: 'success',
        detail: { provider: 'device', sessions: 2 },
      });
      expect(JSON.stringify(audit)).not.toContain(guest.deviceId);
    });

    it('lets one of two unlinks racing for the last two identities through, and refuses the other', async () => {
      const guest = await api.signInDevice();
      await linkIdp1(guest.token, 'racing-ivy');
      const provider = await api.signIn('racing-ivy');
      // Each session unlinks the identity that opened it: the one that goes second still holds a valid token.
      const answers = await Promise.all([unlink(guest.token, 'device', { deviceId: guest.deviceId }), unlink(provider, 'idp1')]);
      expect(answers.map(({ status }) => status).sort()).toEqual([200, 409]);
      const { rows } = await api.database.query(`SELECT count(*)::int AS n FROM user_identities WHERE "userUid" = $1`, [guest.uid]);
      expect(rows[0].n).toBe(1);
    });
  });

  describe('admins', () => {
    it('see the identities of a user and remove one for a support case, ending its sessions', async () => {
      const guest = await api.signInDevice();
      expect((await linkDevice(guest.token, randomUUID())).status).toBe(200);
      await linkIdp1(guest.token, 'support-jack');
      const shown = await api.found<UserAccountBody>(`/users/${guest.uid}`, admin);
      expect(shown.identities.map(({ provider, subject }) => [provider, subject])).toEqual([
        ['device', null],
        ['device', null],
        ['idp1', 'support-jack'],
      ]);

      expectErrorBody(await api.delete(`/users/${guest.uid}/identities/device`, { token: guest.token }), 403, 'FORBIDDEN');
      const removed = await api.delete<UserAccountBody>(`/users/${guest.uid}/identities/device`, { token: admin });
      expect(removed.status).toBe(200);
      expect(removed.body.identities).toEqual([expect.objectContaining({ provider: 'idp1', subject: 'support-jack' })]);
      expect(await works(guest.token)).toBe(401);
      expectErrorBody(await api.delete(`/users/${guest.uid}/identities/device`, { token: admin }), 404, 'NOT_FOUND');
      expectErrorBody(await api.delete(`/users/${guest.uid}/identities/idp1`, { token: admin }), 409, 'LAST_IDENTITY');
      expectValidationError(await api.delete(`/users/${guest.uid}/identities/phone`, { token: admin }), 'provider');
      expectErrorBody(await api.delete(`/users/${randomUUID()}/identities/idp1`, { token: admin }), 404, 'NOT_FOUND');
      expect((await auditOf(guest.uid))[0]).toMatchObject({
        event: 'identity-unlinked',
        sessionUid: null,
        detail: { provider: 'device', identities: 2, sessions: 1, by: decodeJwt(admin).sub },
      });
    });

    it('refuse a banned user every way in: device, linked provider and refresh', async () => {
      const guest = await api.signInDevice();
      await linkIdp1(guest.token, 'banned-kim');
      expect((await api.post(`/users/${guest.uid}/ban`, { reason: 'cheating' }, { token: admin })).status).toBe(200);
      expectErrorBody(await signInDevice(guest.deviceId), 403, 'BANNED');
      expectErrorBody(await signInDevice(guest.deviceId, false), 403, 'BANNED');
      expectErrorBody(
        await api.get('/auth/idp1', { headers: { authorization: `jwt ${await api.providerToken('banned-kim')}` } }),
        403,
        'BANNED',
      );
      expectErrorBody(await api.post('/auth/refresh', { refreshToken: guest.refreshToken }), 403, 'BANNED');
      expect(await works(guest.token)).toBe(401);
      const refusals = (await auditOf(guest.uid)).filter(({ event, outcome }) => event === 'sign-in' && outcome === 'refused');
      expect(refusals.map(({ detail }) => detail)).toEqual([
        { provider: 'idp1', reason: 'banned' },
        { provider: 'device', reason: 'banned' },
        { provider: 'device', reason: 'banned' },
      ]);
    });
  });

  it('never makes a device session an admin, though the account has an admin identity', async () => {
    const guest = await api.signInDevice();
    await linkIdp1(guest.token, 'ops-lead');
    const asAdmin = await api.openSession('ops-lead');
    expect(decodeJwt<{ roles: string[] }>(asAdmin.token).roles).toEqual(['user', 'admin']);
    const onDevice = await api.signInDevice(guest.deviceId);
    expect(decodeJwt<{ roles: string[] }>(onDevice.token).roles).toEqual(['user']);
    const refreshed = await api.post<TokenBody>('/auth/refresh', { refreshToken: onDevice.refreshToken });
    expect(decodeJwt<{ roles: string[] }>(refreshed.body.token).roles).toEqual(['user']);
  });
});

describe('DEVICE_AUTH_ENABLED=false', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start({ DEVICE_AUTH_ENABLED: 'false' });
  });
  afterAll(() => api?.close());

  it('refuses device sign-ins and links with 403, and leaves the providers as they are', async () => {
    const users = await api.countRows('users');
    expectErrorBody(await api.post('/auth/device', { deviceId: randomUUID() }), 403, 'FORBIDDEN');
    const player = await api.signInPlayer('no-devices-here');
    expectErrorBody(await api.post('/account/link/device', { deviceId: randomUUID() }, { token: player.token }), 403, 'FORBIDDEN');
    expect(await api.countRows('users')).toBe(users + 1);
  });
});

describe('device sign-ins and the sign-in rate limit', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_AUTH_PER_MINUTE: '3', TRUST_PROXY: 'true' });
  });
  afterAll(() => api?.close());

  it('counts device sign-ins and links against the sign-in budget of the address', async () => {
    const from = { 'x-forwarded-for': '203.0.113.30' };
    const guest = await api.signInDevice(randomUUID(), from);
    expect((await api.post('/auth/device', { deviceId: guest.deviceId }, { headers: from })).status).toBe(200);
    expect((await api.post('/account/link/device', { deviceId: randomUUID() }, { token: guest.token, headers: from })).status).toBe(200);
    const users = await api.countRows('users');
    const refused = await api.post('/auth/device', { deviceId: randomUUID() }, { headers: from });
    expectErrorBody(refused, 429, 'RATE_LIMITED');
    expect(refused.headers['retry-after']).toBeDefined();
    expectErrorBody(
      await api.post('/account/link/device', { deviceId: randomUUID() }, { token: guest.token, headers: from }),
      429,
      'RATE_LIMITED',
    );
    expect(await api.countRows('users')).toBe(users);
    // Another address still signs in.
    expect((await api.post('/auth/device', { deviceId: randomUUID() }, { headers: { 'x-forwarded-for': '203.0.113.31' } })).status).toBe(
      200,
    );
  });
});

/**
 * Guests filling the disk (issue 47, finding 4): a guest account cost one anonymous request, and each
 * had a player's storage quota. An address now makes at most GUEST_ACCOUNTS_PER_ADDRESS guests a window,
 * and a guest holds the smaller guest quota until it links an identity provider.
 */
describe('guest accounts per address, and the guest storage quota', () => {
  let api: TestApp;
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const newGuest = (address: string) => api.post<any>('/auth/device', { deviceId: randomUUID() }, { headers: from(address) });
  const statuses = (answers: Array<{ status: number }>) => answers.map((answer) => answer.status).sort();

  beforeAll(async () => {
    api = await TestApp.start({
      GUEST_ACCOUNTS_PER_ADDRESS: '3',
      TRUST_PROXY: 'true',
      STORAGE_GUEST_OBJECTS_PER_OWNER: '2',
      STORAGE_GUEST_BYTES_PER_OWNER: '4096',
    });
  });
  afterAll(() => api?.close());

  it('makes at most GUEST_ACCOUNTS_PER_ADDRESS guests an address a window: 429 GUEST_ACCOUNT_LIMIT past it, nothing written', async () => {
    const address = '203.0.113.40';
    const first = await api.signInDevice(randomUUID(), from(address));
    for (let made = 1; made < 3; made++) expect((await newGuest(address)).status).toBe(200);
    const tables = async () => ({ users: await api.countRows('users'), identities: await api.countRows('user_identities') });
    const before = await tables();
    const refused = await newGuest(address);
    expectErrorBody(refused, 429, 'GUEST_ACCOUNT_LIMIT');
    expect(refused.body.limit).toBe(3);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await tables()).toEqual(before);
    // A device that has an account, a provider's sign-in and another address are not bounded by it.
    expect((await api.post('/auth/device', { deviceId: first.deviceId }, { headers: from(address) })).status).toBe(200);
    expect(
      (await api.get('/auth/idp1', { headers: { ...from(address), authorization: `jwt ${await api.providerToken('not-a-guest')}` } }))
        .status,
    ).toBe(200);
    expect((await newGuest('203.0.113.41')).status).toBe(200);
    // The next window counts afresh (the address's window made to have begun a day ago).
    await api.database.query(`UPDATE guest_accounts_by_address SET "windowStart" = "windowStart" - interval '1 day' WHERE address = $1`, [
      address,
    ]);
    expect((await newGuest(address)).status).toBe(200);
  });

  it('counts an IPv6 address by its /64, and makes no more guests than the bound of sign-ins racing for the last ones', async () => {
    expect(
      statuses(await Promise.all(['2001:db8:47::1', '2001:db8:47::2', '2001:db8:47:0:ffff::3', '2001:db8:47::4'].map(newGuest))),
    ).toEqual([200, 200, 200, 429]);
    expect((await newGuest('2001:db8:48::1')).status).toBe(200);
    expect(statuses(await Promise.all(Array.from({ length: 8 }, () => newGuest('203.0.113.42'))))).toEqual([
      200, 200, 200, 429, 429, 429, 429, 429,
    ]);
  });

  it("holds a guest to the guest storage quota until it links an identity provider, then to a player's", async () => {
    const guest = await api.signInDevice(randomUUID(), from('203.0.113.43'));
    const write = (key: string) =>
      api.put('/storage', { objects: [{ collection: 'saves', key, value: { level: 1 } }] }, { token: guest.token });
    expect((await write('one')).status).toBe(200);
    expect((await write('two')).status).toBe(200);
    const refused = await write('three');
    expectErrorBody(refused, 409, 'QUOTA_EXCEEDED');
    expect(refused.body.left).toEqual({ objects: 0, bytes: expect.any(Number) });
    expect(refused.body.message).toMatch(/guest/);
    const big = await api.put(
      '/storage',
      { objects: [{ collection: 'saves', key: 'one', value: { blob: 'x'.repeat(5000) } }] },
      { token: guest.token },
    );
    expectErrorBody(big, 409, 'QUOTA_EXCEEDED');
    expect(await api.countRows('storage_objects')).toBe(2);
    expect((await api.post('/account/link/idp1', { token: await api.providerToken('saved-guest') }, { token: guest.token })).status).toBe(
      200,
    );
    expect((await write('three')).status).toBe(200);
    expect(await api.countRows('storage_objects')).toBe(3);
  });
});
