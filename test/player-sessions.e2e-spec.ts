import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt } from 'jose';
import type { AuditEntryBody, PlayerSessionBody, TokenBody, UserAccountBody } from './support/api-types.js';
import { expectErrorBody } from './support/expectations.js';
import { RealtimeClient, type RefusedUpgrade } from './support/realtime-client.js';
import { TestApp } from './support/test-app.js';

/**
 * Player sessions as a player and an admin live them: refresh with rotation, replay detection,
 * concurrent refreshes, signing out of one session, of all, bans, the audit, expiry, and the sockets
 * that close with them. The cross-instance side (a ban refused on another instance within a second)
 * is in the fault suite, on real processes.
 */
const REUSE_GRACE_MS = 1000;
const GAME_CLIENT = { 'user-agent': 'UnityPlayer/6000.0.23f1 (test rig)' };

describe('player sessions', () => {
  let api: TestApp;
  let admin: string;
  const sockets: RealtimeClient[] = [];

  const refresh = (refreshToken: string) => api.post<TokenBody>('/auth/refresh', { refreshToken }, { headers: GAME_CLIENT });
  const works = async (token: string) => (await api.get('/personas', { token })).status;
  const sessionOf = (token: string) => decodeJwt<{ sid: string }>(token).sid;
  const uidOf = (token: string) => decodeJwt(token).sub!;
  const auditOf = async (userUid: string) => (await api.get<AuditEntryBody[]>(`/users/${userUid}/audit`, { token: admin })).body;
  const socket = async (token: string) => {
    const client = await RealtimeClient.connect(api.baseUrl, { token });
    sockets.push(client);
    return client;
  };

  beforeAll(async () => {
    api = await TestApp.start({ REFRESH_REUSE_GRACE: String(REUSE_GRACE_MS) }, { listen: true });
    admin = await api.signIn('admin');
  });

  afterAll(async () => {
    for (const client of sockets) client.socket.terminate();
    await api?.close();
  });

  describe('refresh', () => {
    it('trades a refresh token for a new pair, once; the session shows when and where it began and was refreshed', async () => {
      const first = await api.openSession('rotating-player', GAME_CLIENT);
      expect(first.expiresIn).toBe(3600);
      const second = await refresh(first.refreshToken);
      expect(second.status).toBe(200);
      expect(second.body.refreshToken).not.toBe(first.refreshToken);
      expect(sessionOf(second.body.token)).toBe(sessionOf(first.token));
      expect(await works(second.body.token)).toBe(200);

      const listed = await api.get<PlayerSessionBody[]>('/auth/sessions', { token: second.body.token });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([
        expect.objectContaining({
          uid: sessionOf(first.token),
          provider: 'idp1',
          userAgent: GAME_CLIENT['user-agent'],
          address: '127.0.0.1',
          current: true,
          lastRefreshedAt: expect.any(String),
        }),
      ]);
      const [session] = listed.body;
      expect(Date.parse(session.lastRefreshedAt!)).toBeGreaterThanOrEqual(Date.parse(session.dateCreated));
      // Sliding: the session now lives REFRESH_TTL (30 days) from the refresh.
      expect(Date.parse(session.expiresAt) - Date.parse(session.lastRefreshedAt!)).toBe(30 * 24 * 3600 * 1000);
      // The refresh tokens are stored as hashes only.
      const { rows } = await api.database.query('SELECT hash FROM auth_refresh_tokens WHERE "sessionUid" = $1', [session.uid]);
      expect(rows.map(({ hash }) => hash as string).sort()).toEqual([hashOf(first.refreshToken), hashOf(second.body.refreshToken)].sort());
    });

    it('revokes the whole session when a spent refresh token comes back (a replay), and audits it', async () => {
      const first = await api.openSession('replayed-player');
      const second = (await refresh(first.refreshToken)).body;
      await sleep(REUSE_GRACE_MS + 200);
      expectErrorBody(await refresh(first.refreshToken), 401, 'UNAUTHORIZED');
      // Every token of the session: the newest access token, and the newest refresh token.
      expectErrorBody(await api.get('/personas', { token: second.token }), 401, 'UNAUTHORIZED');
      expectErrorBody(await refresh(second.refreshToken), 401, 'UNAUTHORIZED');
      const audit = await auditOf(uidOf(first.token));
      expect(audit.map(({ event, outcome }) => `${event} ${outcome}`)).toEqual([
        'refresh refused',
        'replay-detected refused',
        'refresh success',
        'sign-in success',
      ]);
      expect(audit[1]).toMatchObject({ sessionUid: sessionOf(first.token), address: '127.0.0.1', userAgent: GAME_CLIENT['user-agent'] });
    });

    it('lets one of two concurrent refreshes win and refuses the other with 409, revoking nothing', async () => {
      const first = await api.openSession('hasty-player');
      const answers = await Promise.all([refresh(first.refreshToken), refresh(first.refreshToken)]);
      expect(answers.map(({ status }) => status).sort()).toEqual([200, 409]);
      const loser = answers.find(({ status }) => status === 409)!;
      expectErrorBody(loser, 409, 'REFRESH_CONFLICT');
      const winner = answers.find(({ status }) => status === 200)!.body;
      expect(await works(winner.token)).toBe(200);
      expect(await works(first.token)).toBe(200);
      expect((await refresh(winner.refreshToken)).status).toBe(200);
    });

    it('refuses unknown, malformed and missing refresh tokens with 401 or 400, and changes nothing', async () => {
      const before = await api.database.query('SELECT count(*)::int AS n FROM auth_audit');
      expectErrorBody(await refresh('A'.repeat(43)), 401, 'UNAUTHORIZED');
      expectErrorBody(await refresh('not a token'), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/auth/refresh', {}), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.post('/auth/refresh', { refreshToken: 42 }), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.post('/auth/refresh', { refreshToken: 'A'.repeat(43), extra: true }), 400, 'VALIDATION_FAILED');
      expect((await api.database.query('SELECT count(*)::int AS n FROM auth_audit')).rows).toEqual(before.rows);
    });
  });

  describe('signing out', () => {
    it('logout ends this session only: its tokens stop, another session of the same user keeps working', async () => {
      const phone = await api.openSession('two-device-player');
      const console = await api.openSession('two-device-player');
      expect((await api.post('/auth/logout', undefined, { token: phone.token })).status).toBe(204);
      expectErrorBody(await api.get('/personas', { token: phone.token }), 401, 'UNAUTHORIZED');
      expectErrorBody(await refresh(phone.refreshToken), 401, 'UNAUTHORIZED');
      expect(await works(console.token)).toBe(200);
      const listed = await api.get<PlayerSessionBody[]>('/auth/sessions', { token: console.token });
      expect(listed.body.map(({ uid }) => uid)).toEqual([sessionOf(console.token)]);
      expect((await refresh(console.refreshToken)).status).toBe(200);
    });

    it('logout-all ends every session and token of the user; signing in again works', async () => {
      const sessions = await Promise.all([1, 2, 3].map(() => api.openSession('everywhere-player')));
      const refreshed = (await refresh(sessions[2].refreshToken)).body;
      expect((await api.post('/auth/logout-all', undefined, { token: sessions[0].token })).status).toBe(204);
      for (const token of [...sessions.map((session) => session.token), refreshed.token]) {
        expectErrorBody(await api.get('/personas', { token }), 401, 'UNAUTHORIZED');
      }
      expectErrorBody(await refresh(refreshed.refreshToken), 401, 'UNAUTHORIZED');
      const again = await api.openSession('everywhere-player');
      expect(await works(again.token)).toBe(200);
      expect((await api.get<PlayerSessionBody[]>('/auth/sessions', { token: again.token })).body).toHaveLength(1);
    });

    it("revokes one named session of one's own; another player's answers 404 and keeps working; an admin may revoke any", async () => {
      const mine = await api.openSession('tidy-player');
      const old = await api.openSession('tidy-player');
      const stranger = await api.openSession('stranger-player');
      expect((await api.delete(`/auth/sessions/${sessionOf(old.token)}`, { token: mine.token })).status).toBe(204);
      expectErrorBody(await api.get('/personas', { token: old.token }), 401, 'UNAUTHORIZED');
      expect(await works(mine.token)).toBe(200);
      // Again: already over, nothing changes.
      expect((await api.delete(`/auth/sessions/${sessionOf(old.token)}`, { token: mine.token })).status).toBe(204);

      expectErrorBody(await api.delete(`/auth/sessions/${sessionOf(stranger.token)}`, { token: mine.token }), 404, 'NOT_FOUND');
      expect(await works(stranger.token)).toBe(200);
      expectErrorBody(await api.delete('/auth/sessions/not-a-uuid', { token: mine.token }), 400, 'VALIDATION_FAILED');

      expect((await api.delete(`/auth/sessions/${sessionOf(stranger.token)}`, { token: admin })).status).toBe(204);
      expectErrorBody(await api.get('/personas', { token: stranger.token }), 401, 'UNAUTHORIZED');
      const audit = await auditOf(uidOf(stranger.token));
      expect(audit[0]).toMatchObject({ event: 'session-revoked', outcome: 'success', detail: { by: uidOf(admin) } });
    });

    it('closes the sockets of a session signed out (4403), and refuses a ticket or token of it afterwards', async () => {
      const mine = await api.openSession('socket-player');
      const other = await api.openSession('socket-player');
      const ticket = (await api.post('/realtime/tickets', undefined, { token: mine.token })).body.ticket as string;
      const doomed = await socket(mine.token);
      const survivor = await socket(other.token);
      expect((await api.post('/auth/logout', undefined, { token: mine.token })).status).toBe(204);
      expect(await doomed.closed).toMatchObject({ code: 4403 });
      const refused = await RealtimeClient.connect(api.baseUrl, { ticket }).catch((error: RefusedUpgrade) => error);
      expect(refused).toMatchObject({ status: 401 });
      const refusedToken = await RealtimeClient.connect(api.baseUrl, { token: mine.token }).catch((error: RefusedUpgrade) => error);
      expect(refusedToken).toMatchObject({ status: 401 });
      expect(survivor.socket.readyState).toBe(survivor.socket.OPEN);
    });
  });

  describe('bans', () => {
    it('bans: no sign-in (403 BANNED with until), no refresh, no old token, sockets closed; unban lets them sign in again', async () => {
      const session = await api.openSession('cheater');
      const userUid = uidOf(session.token);
      const open = await socket(session.token);

      const banned = await api.post<UserAccountBody>(`/users/${userUid}/ban`, { reason: 'speed hack' }, { token: admin });
      expect(banned.status).toBe(200);
      expect(banned.body).toMatchObject({ uid: userUid, banned: true, banReason: 'speed hack', bannedUntil: null, sessions: [] });
      expect(await open.closed).toMatchObject({ code: 4403 });
      expectErrorBody(await api.get('/personas', { token: session.token }), 401, 'UNAUTHORIZED');
      const refreshRefused = await refresh(session.refreshToken);
      expectErrorBody(refreshRefused, 403, 'BANNED');
      expect((refreshRefused.body as unknown as { until: unknown }).until).toBeNull();
      const signInRefused = await api.get('/auth/idp1', { headers: { authorization: `jwt ${await api.providerToken('cheater')}` } });
      expectErrorBody(signInRefused, 403, 'BANNED');
      expect(signInRefused.body.until).toBeNull();

      const unbanned = await api.post<UserAccountBody>(`/users/${userUid}/unban`, undefined, { token: admin });
      expect(unbanned.body).toMatchObject({ banned: false, bannedAt: null, banReason: null });
      // The tokens the ban voided stay void; a new sign-in works.
      expectErrorBody(await api.get('/personas', { token: session.token }), 401, 'UNAUTHORIZED');
      expectErrorBody(await refresh(session.refreshToken), 401, 'UNAUTHORIZED');
      const again = await api.openSession('cheater');
      expect(await works(again.token)).toBe(200);

      const audit = await auditOf(userUid);
      expect(
        audit.map(({ event, outcome, detail }) => `${event} ${outcome} ${(detail?.reason as string | undefined) ?? ''}`.trim()),
      ).toEqual([
        'sign-in success',
        'refresh refused revoked',
        'unban success',
        'sign-in refused banned',
        'refresh refused banned',
        'ban success speed hack',
        'sign-in success',
      ]);
      expect(audit[5].detail).toMatchObject({ by: uidOf(admin), reason: 'speed hack', until: null, sessions: 1 });
    });

    it('ends a ban with an end by itself, and says when in the refusal', async () => {
      const session = await api.openSession('short-ban-player');
      const until = new Date(Date.now() + 1500).toISOString();
      const banned = await api.post(`/users/${uidOf(session.token)}/ban`, { reason: 'toxic chat', until }, { token: admin });
      expect(banned.body).toMatchObject({ banned: true, bannedUntil: until });
      const refused = await api.get('/auth/idp1', { headers: { authorization: `jwt ${await api.providerToken('short-ban-player')}` } });
      expectErrorBody(refused, 403, 'BANNED');
      expect(refused.body.until).toBe(until);
      await sleep(Date.parse(until) - Date.now() + 100);
      expect(await works((await api.openSession('short-ban-player')).token)).toBe(200);
      expect((await api.get<UserAccountBody>(`/users/${uidOf(session.token)}`, { token: admin })).body.banned).toBe(false);
    });

    it('refuses a ban without a reason, ending in the past, of oneself, of nobody, or by a player, and changes nothing', async () => {
      const player = await api.openSession('innocent-player');
      const userUid = uidOf(player.token);
      const past = new Date(Date.now() - 1000).toISOString();
      expectErrorBody(await api.post(`/users/${userUid}/ban`, {}, { token: admin }), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.post(`/users/${userUid}/ban`, { reason: '' }, { token: admin }), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.post(`/users/${userUid}/ban`, { reason: 'x', until: past }, { token: admin }), 400, 'VALIDATION_FAILED');
      expectErrorBody(
        await api.post(`/users/${userUid}/ban`, { reason: 'x', until: 'tomorrow' }, { token: admin }),
        400,
        'VALIDATION_FAILED',
      );
      expectErrorBody(await api.post(`/users/${uidOf(admin)}/ban`, { reason: 'oops' }, { token: admin }), 400, 'VALIDATION_FAILED');
      expectErrorBody(
        await api.post('/users/00000000-0000-4000-8000-000000000000/ban', { reason: 'x' }, { token: admin }),
        404,
        'NOT_FOUND',
      );
      expectErrorBody(await api.post(`/users/${userUid}/ban`, { reason: 'x' }, { token: player.token }), 403, 'FORBIDDEN');
      expect(await works(player.token)).toBe(200);
      expect((await api.get<UserAccountBody>(`/users/${userUid}`, { token: admin })).body.banned).toBe(false);
    });
  });

  describe('admins', () => {
    it('list users with provider, ban and active sessions, filtered like any list; players may not', async () => {
      const session = await api.openSession('listed-player', GAME_CLIENT);
      const userUid = uidOf(session.token);
      const listed = await api.get<UserAccountBody[]>(`/users?subject=listed-player`, { token: admin });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([
        expect.objectContaining({
          uid: userUid,
          provider: 'idp1',
          subject: 'listed-player',
          banned: false,
          sessions: [expect.objectContaining({ uid: sessionOf(session.token), userAgent: GAME_CLIENT['user-agent'], current: false })],
        }),
      ]);
      expectErrorBody(await api.get('/users', { token: session.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.get(`/users/${userUid}/audit`, { token: session.token }), 403, 'FORBIDDEN');
      expectErrorBody(await api.get('/users?limit=0', { token: admin }), 400, 'VALIDATION_FAILED');
    });

    it('page the audit back with before and limit', async () => {
      const session = await api.openSession('audited-player');
      let refreshToken = session.refreshToken;
      for (let count = 0; count < 3; count++) refreshToken = (await refresh(refreshToken)).body.refreshToken;
      const userUid = uidOf(session.token);
      const all = await auditOf(userUid);
      expect(all.map(({ event }) => event)).toEqual(['refresh', 'refresh', 'refresh', 'sign-in']);
      const page = await api.get<AuditEntryBody[]>(`/users/${userUid}/audit?limit=2&before=${all[1].id}`, { token: admin });
      expect(page.body.map(({ id }) => id)).toEqual([all[2].id, all[3].id]);
      expectErrorBody(await api.get(`/users/${userUid}/audit?before=yesterday`, { token: admin }), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.get(`/users/${userUid}/audit?page=2`, { token: admin }), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.get('/users/00000000-0000-4000-8000-000000000000/audit', { token: admin }), 404, 'NOT_FOUND');
      // No token, refresh token or hash of one is in the audit.
      const text = JSON.stringify(all);
      for (const secret of [session.token, session.refreshToken, hashOf(session.refreshToken), refreshToken])
        expect(text).not.toContain(secret);
    });
  });

  describe('the revocation list', () => {
    it('answers from memory, and from the database while the fan-out is down, then reloads', async () => {
      const session = await api.openSession('quiet-revocation-player');
      // Revoked behind the service's back, with no notification: as if this instance missed one.
      await api.database.query(`UPDATE auth_sessions SET "revokedAt" = now() WHERE uid = $1`, [sessionOf(session.token)]);
      expect(await works(session.token)).toBe(200);
      // The LISTEN connection drops: the guard asks the database until the list is reloaded, and the
      // reloaded list has the revocation.
      await api.database.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'game-backend fanout' AND datname = current_database()`,
      );
      const deadline = Date.now() + 5000;
      while ((await works(session.token)) === 200 && Date.now() < deadline) await sleep(20);
      expectErrorBody(await api.get('/personas', { token: session.token }), 401, 'UNAUTHORIZED');
      await sleep(500);
      expectErrorBody(await api.get('/personas', { token: session.token }), 401, 'UNAUTHORIZED');
      expect(await works(admin)).toBe(200);
    });
  });

  describe('expiry', () => {
    let shortLived: TestApp;

    beforeAll(async () => {
      shortLived = await TestApp.start({ REFRESH_TTL: '2' });
    });

    afterAll(async () => {
      await shortLived?.close();
    });

    it('slides the session with each refresh, and refuses a refresh once it has run out', async () => {
      const session = await shortLived.openSession('sleepy-player');
      await sleep(1200);
      const renewed = await shortLived.post<TokenBody>('/auth/refresh', { refreshToken: session.refreshToken });
      expect(renewed.status).toBe(200);
      await sleep(1200);
      // 2.4 s after signing in, 1.2 s after the refresh: alive, because the refresh pushed the end.
      const again = await shortLived.post<TokenBody>('/auth/refresh', { refreshToken: renewed.body.refreshToken });
      expect(again.status).toBe(200);
      await sleep(2200);
      expectErrorBody(await shortLived.post('/auth/refresh', { refreshToken: again.body.refreshToken }), 401, 'UNAUTHORIZED');
      // The access token lives its own life (JWT_TTL).
      expect((await shortLived.get('/personas', { token: again.body.token })).status).toBe(200);
    });
  });
});

const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');
