import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { type DataChecksum, dataChecksum } from './support/data-checksum.js';
import { TestApp, type TestResponse } from './support/test-app.js';

/**
 * Who may do what (docs/CONTRACT.md sections 1, 5 and 7), as one table: every route of the OpenAPI document
 * against four callers, each cell driven against real records made for it. A route the document
 * gains without a row here fails the test, so a new route must be classified before it ships.
 *
 * Callers: anonymous (no token); "owner", who made the record (for catalog data, which only admins
 * write, a player like any other); "other", a second player; and an admin. In the sign-in rows each
 * presents their identity provider's token instead of ours.
 *
 * A cell is the expected status; on list and count routes (filtered on the record's uid) `sees` and
 * `blind` mean 200 with or without the record, so that a list never shows what a find would hide.
 * A refused request (4xx) must leave every table as it was.
 */

type Role = 'anonymous' | 'owner' | 'other' | 'admin';
const ROLES: Role[] = ['anonymous', 'owner', 'other', 'admin'];
type Cell = number | 'sees' | 'blind';

interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** Replaces the role's credential (a token of a session opened for this cell alone). */
  headers?: Record<string, string>;
  /** The body's Content-Type, when it is a file's bytes rather than JSON. */
  type?: string;
}

interface Row {
  /** `METHOD /path/{param}` exactly as in the OpenAPI document. */
  route: string;
  /** Which fixture, when a route has more than one row. */
  variant?: string;
  /** anonymous, owner, other, admin */
  cells: [Cell, Cell, Cell, Cell];
  /** Makes the records of one cell and says how to call the route on them. */
  call?: (world: World, role: Role) => Promise<Call>;
  /** Whose token a role presents: ours, or their identity provider's (sign-in routes). */
  credential?: 'jwt' | 'idp1' | 'idp2';
  /** Runs after every other row (truncates). */
  last?: boolean;
  /** For 'sees' and 'blind': whether the answer shows the cell's record, when it is neither a list of records nor a count. */
  seen?: (body: any) => boolean;
}

interface Player {
  token: string;
  uid: string;
  personaUid: string;
}

/** The players, the records they share and factories for the records each cell gets afresh. */
interface World {
  owner: Player;
  other: Player;
  admin: Player;
  /** The persona two of the owner's trades. */
  partner: Player;
  catalogItem: string;
  ownerInventoryRow: string;
  ownerUnlock: string;
  item(): Promise<string>;
  mediaAsset(): Promise<string>;
  /** An asset with a file uploaded to its `icon` variant: the asset and the file's path parameters. */
  mediaFile(): Promise<{ id: string; type: string; subtype: string; sha256: string }>;
  textAsset(): Promise<string>;
  achievement(): Promise<string>;
  gameSession(visibility: 'PUBLIC' | 'INVITE_ONLY'): Promise<string>;
  ticket(): Promise<string>;
  /** A ticket the owner queued for a party with the partner (who has not answered yet). */
  partyTicket(): Promise<string>;
  pendingTrade(): Promise<string>;
  skill(): Promise<{ personaUid: string; archetypeUid: string; skillUid: string; uid: string }>;
  /** A new player session of the role's user (the owner's for anonymous), for routes that end one. */
  session(role: Role): Promise<{ token: string; refreshToken: string; uid: string }>;
  /** A user made for one cell, to ban or unban. */
  user(): Promise<string>;
  /** A storage object of the owner's (an admin writes it, as a game server would), alone in its collection. */
  storageObject(permissions?: {
    permissionRead?: 'NONE' | 'PUBLIC';
    permissionWrite?: 'NONE';
  }): Promise<{ collection: string; key: string }>;
  /** A device id linked to the role's account for this cell (anonymous: a device nobody has). */
  linkedDevice(role: Role): Promise<string>;
  /** An idp1 token of the role's own identity (anonymous: the owner's). */
  idp1Token(role: Role): Promise<string>;
  /** A user made for one cell, with a device linked besides their idp1 identity. */
  userWithDevice(): Promise<string>;
  /** A leaderboard on which the owner's persona has a score: the board, its period and the persona. */
  leaderboard(): Promise<{ id: string; periodUid: string; personaUid: string }>;
  /** The id of an entry of the admin audit (the fixtures' admin writes made some). */
  auditEntry(): Promise<string>;
}

const ARCHETYPE = 'warrior';
let serial = 0;
const next = () => ++serial;

const sessionCase = (visibility: 'PUBLIC' | 'INVITE_ONLY') => async (w: World) => ({ params: { id: await w.gameSession(visibility) } });
/** Sends the token of a session opened for this cell, which the route will end (anonymous sends none). */
const ownSession = async (w: World, role: Role): Promise<Call> =>
  role === 'anonymous' ? {} : { headers: { authorization: `jwt ${(await w.session(role)).token}` } };
const listOf = (uid: (w: World) => Promise<string> | string) => async (w: World) => ({ query: { uid: await uid(w) } });
const byId = (uid: (w: World) => Promise<string> | string) => async (w: World) => ({ params: { id: await uid(w) } });
/** An owner's storage object, named in the body's `objects` (with `value` for a write). */
const storageBatch =
  (permissions: Parameters<World['storageObject']>[0], value?: unknown) =>
  async (w: World): Promise<Call> => {
    const ref = { ...(await w.storageObject(permissions)), ownerUid: w.owner.uid };
    return { body: { objects: [value === undefined ? ref : { ...ref, value }] } };
  };
/** An owner's storage object in the path (and `ownerUid` in the query). */
const storagePath =
  (permissions?: Parameters<World['storageObject']>[0]) =>
  async (w: World): Promise<Call> => {
    const { collection, key } = await w.storageObject(permissions);
    return { params: { collection, key }, query: { ownerUid: w.owner.uid } };
  };
const someObjects = (body: { objects?: unknown[] }) => (body.objects?.length ?? 0) > 0;

const inSkill = async (w: World) => {
  const { personaUid, archetypeUid, skillUid, uid } = await w.skill();
  return { params: { personaUid, archetypeUid, skillUid }, query: { uid } };
};

// prettier-ignore
const TABLE: Row[] = [
  //                                                                         anonymous owner    other    admin
  // Operations and sign-in: public.
  { route: 'GET /health',                                             cells: [200,      200,     200,     200] },
  { route: 'GET /health/ready',                                       cells: [200,      200,     200,     200] },
  { route: 'GET /metrics',                                            cells: [200,      200,     200,     200] },
  { route: 'GET /auth/idp1',                                          cells: [401,      200,     200,     200], credential: 'idp1' },
  { route: 'GET /auth/idp2',                                          cells: [401,      200,     200,     200], credential: 'idp2' },
  // Refresh needs no access token: the refresh token is the credential, whoever presents it.
  { route: 'POST /auth/refresh',                                      cells: [200,      200,     200,     200], call: async (w, role) => ({
      body: { refreshToken: (await w.session(role)).refreshToken } }) },
  // A device id is the credential: any caller's token is ignored; the first sign-in creates a guest.
  { route: 'POST /auth/device',                                       cells: [200,      200,     200,     200], call: async () => ({
      body: { deviceId: randomUUID() } }) },

  // The account: every signed-in user's own identities, linked and unlinked by them.
  { route: 'GET /account',                                            cells: [401,      200,     200,     200] },
  { route: 'POST /account/link/device',                               cells: [401,      200,     200,     200], call: async () => ({
      body: { deviceId: randomUUID() } }) },
  { route: 'POST /account/link/idp1',                                 cells: [401,      200,     200,     200], call: async (w, role) => ({
      body: { token: await w.idp1Token(role) } }) },
  { route: 'POST /account/link/idp2',                                 cells: [401,      200,     200,     200], call: async () => ({
      body: { token: `idp2-link-${next()}` } }) },
  { route: 'POST /account/unlink/{provider}',                         cells: [401,      200,     200,     200], call: async (w, role) => ({
      params: { provider: 'device' }, body: { deviceId: await w.linkedDevice(role) } }) },

  // Player sessions: each signed-in user's own; an admin may revoke anyone's.
  { route: 'POST /auth/logout',                                       cells: [401,      204,     204,     204], call: ownSession },
  { route: 'GET /auth/sessions',                                      cells: [401,      200,     200,     200] },
  { route: 'DELETE /auth/sessions/{id}',                              cells: [401,      204,     404,     204], call: async (w) => ({
      params: { id: (await w.session('owner')).uid } }) },

  // Users, bans and the audit: admins only.
  { route: 'GET /users',                                              cells: [401,      403,     403,     'sees'], call: listOf((w) => w.owner.uid) },
  { route: 'GET /users/{id}',                                         cells: [401,      403,     403,     200], call: byId((w) => w.owner.uid) },
  { route: 'POST /users/{id}/ban',                                    cells: [401,      403,     403,     200], call: async (w) => ({
      params: { id: await w.user() }, body: { reason: 'matrix' } }) },
  { route: 'POST /users/{id}/unban',                                  cells: [401,      403,     403,     200], call: byId((w) => w.user()) },
  { route: 'GET /users/{id}/audit',                                   cells: [401,      403,     403,     200], call: byId((w) => w.owner.uid) },
  { route: 'DELETE /users/{id}/identities/{provider}',                cells: [401,      403,     403,     200], call: async (w) => ({
      params: { id: await w.userWithDevice(), provider: 'device' } }) },
  { route: 'DELETE /users/{id}/sessions',                             cells: [401,      403,     403,     204], call: byId((w) => w.user()) },
  { route: 'GET /users/{id}/unlocks',                                 cells: [401,      403,     403,     200], call: byId((w) => w.owner.uid) },

  // The admin audit and the console's live figures: admins only.
  { route: 'GET /admin/audit',                                        cells: [401,      403,     403,     200] },
  { route: 'GET /admin/audit/{id}',                                   cells: [401,      403,     403,     200], call: async (w) => ({ params: { id: await w.auditEntry() } }) },
  { route: 'GET /admin/stats',                                        cells: [401,      403,     403,     200] },
  // The development provider's subject picker answers anyone on this machine (never in production).
  { route: 'POST /auth/dev-token',                                    cells: [200,      200,     200,     200], call: async () => ({ body: { subject: `matrix-picked-${next()}` } }) },

  // Personas: their user's, and the admins'.
  { route: 'GET /personas',                                           cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.owner.personaUid) },
  { route: 'POST /personas',                                          cells: [401,      201,     201,     201], call: async () => ({ body: { name: `Alt ${next()}` } }) },
  { route: 'GET /personas/{id}',                                      cells: [401,      200,     404,     200], call: byId((w) => w.owner.personaUid) },

  // Items: catalog data, read by every signed-in user, written by admins.
  { route: 'GET /items',                                              cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.item()) },
  { route: 'GET /items/count',                                        cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.item()) },
  { route: 'POST /items',                                             cells: [401,      403,     403,     201], call: async () => ({ body: { name: `Sword ${next()}` } }) },
  { route: 'GET /items/{id}',                                         cells: [401,      200,     200,     200], call: byId((w) => w.item()) },
  { route: 'PUT /items/{id}',                                         cells: [401,      403,     403,     200], call: async (w) => ({ params: { id: await w.item() }, body: { cost: 5 } }) },
  { route: 'DELETE /items/{id}',                                      cells: [401,      403,     403,     200], call: byId((w) => w.item()) },

  // Sessions: PUBLIC ones are seen by every signed-in user, the others by host, members, invitees and admins;
  // only the host or an admin changes one. Join answers 403 (not 404) for INVITE_ONLY, as the contract says.
  { route: 'GET /sessions', variant: 'PUBLIC',                        cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.gameSession('PUBLIC')) },
  { route: 'GET /sessions', variant: 'INVITE_ONLY',                   cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.gameSession('INVITE_ONLY')) },
  { route: 'GET /sessions/count', variant: 'PUBLIC',                  cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.gameSession('PUBLIC')) },
  { route: 'GET /sessions/count', variant: 'INVITE_ONLY',             cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.gameSession('INVITE_ONLY')) },
  { route: 'POST /sessions',                                          cells: [401,      201,     201,     201], call: async () => ({ body: { numTeams: 2, teamSize: 2 } }) },
  { route: 'GET /sessions/{id}', variant: 'PUBLIC',                   cells: [401,      200,     200,     200], call: sessionCase('PUBLIC') },
  { route: 'GET /sessions/{id}', variant: 'INVITE_ONLY',              cells: [401,      200,     404,     200], call: sessionCase('INVITE_ONLY') },
  { route: 'PUT /sessions/{id}', variant: 'PUBLIC',                   cells: [401,      200,     403,     200], call: async (w) => ({ ...(await sessionCase('PUBLIC')(w)), body: { status: 'IDLE' } }) },
  { route: 'PUT /sessions/{id}', variant: 'INVITE_ONLY',              cells: [401,      200,     404,     200], call: async (w) => ({ ...(await sessionCase('INVITE_ONLY')(w)), body: { status: 'IDLE' } }) },
  { route: 'DELETE /sessions/{id}', variant: 'PUBLIC',                cells: [401,      200,     403,     200], call: sessionCase('PUBLIC') },
  { route: 'DELETE /sessions/{id}', variant: 'INVITE_ONLY',           cells: [401,      200,     404,     200], call: sessionCase('INVITE_ONLY') },
  { route: 'GET /sessions/{id}/join', variant: 'PUBLIC',              cells: [401,      200,     200,     200], call: sessionCase('PUBLIC') },
  { route: 'GET /sessions/{id}/join', variant: 'INVITE_ONLY',         cells: [401,      200,     403,     200], call: sessionCase('INVITE_ONLY') },
  { route: 'GET /sessions/{id}/leave', variant: 'PUBLIC',             cells: [401,      200,     200,     200], call: sessionCase('PUBLIC') },
  { route: 'GET /sessions/{id}/leave', variant: 'INVITE_ONLY',        cells: [401,      200,     404,     200], call: sessionCase('INVITE_ONLY') },
  // Presence is the members' own: a visible session the caller is not in answers 409.
  { route: 'POST /sessions/{id}/heartbeat', variant: 'PUBLIC',         cells: [401,      204,     409,     409], call: sessionCase('PUBLIC') },
  { route: 'POST /sessions/{id}/heartbeat', variant: 'INVITE_ONLY',    cells: [401,      204,     404,     409], call: sessionCase('INVITE_ONLY') },
  { route: 'DELETE /sessions',                                        cells: [401,      403,     403,     200], last: true },

  // Tickets: their host's and users', and the admins'.
  { route: 'GET /tickets',                                            cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.ticket()) },
  { route: 'GET /tickets/count',                                      cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.ticket()) },
  { route: 'POST /tickets',                                           cells: [401,      201,     201,     201], call: async () => ({ body: { numTeams: 2 } }) },
  { route: 'GET /tickets/{id}',                                       cells: [401,      200,     404,     200], call: byId((w) => w.ticket()) },
  { route: 'PUT /tickets/{id}',                                       cells: [401,      200,     404,     200], call: async (w) => ({ params: { id: await w.ticket() }, body: { numTeams: 3 } }) },
  { route: 'DELETE /tickets/{id}',                                    cells: [401,      200,     404,     200], call: byId((w) => w.ticket()) },
  // A party is answered by the users it names, each for themselves: the host has agreed already (accept
  // is idempotent) and does not decline; an admin answers for nobody.
  { route: 'POST /tickets/{id}/accept',                               cells: [401,      200,     404,     403], call: byId((w) => w.partyTicket()) },
  { route: 'POST /tickets/{id}/decline',                              cells: [401,      403,     404,     403], call: byId((w) => w.partyTicket()) },
  // The queue's depth is everyone's (signed in); the wait figures are the admins' (test/tickets.e2e-spec.ts).
  { route: 'GET /tickets/stats',                                      cells: [401,      200,     200,     200] },
  { route: 'DELETE /tickets',                                         cells: [401,      403,     403,     200], last: true },

  // Inventories: their persona owner's, and the admins'; changed by transactions only.
  { route: 'GET /inventories',                                        cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.ownerInventoryRow) },
  { route: 'GET /inventories/count',                                  cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.ownerInventoryRow) },
  { route: 'GET /inventories/ledger',                                 cells: [401,      200,     404,     200], call: async (w) => ({ query: { personaUid: w.owner.personaUid } }) },
  { route: 'GET /inventories/{id}',                                   cells: [401,      200,     404,     200], call: byId((w) => w.ownerInventoryRow) },
  { route: 'POST /inventories/transaction', variant: 'gift from the owner\'s persona',
                                                                      cells: [401,      200,     403,     200], call: async (w) => ({ body: {
      personaOneUid: w.owner.personaUid, personaTwoUid: w.partner.personaUid, personaOneInventoryItems: [{ itemUid: w.catalogItem, quantity: 1 }] } }) },
  { route: 'POST /inventories/transaction', variant: 'AWARD',         cells: [401,      403,     403,     200], call: async (w) => ({ body: {
      type: 'AWARD', personaOneUid: w.owner.personaUid, personaOneInventoryItems: [{ itemUid: w.catalogItem, quantity: 1 }] } }) },

  // Transactions: a PENDING trade from the owner's persona to a third player's; accept and decline are
  // persona two's (403 to persona one's owner), cancel is persona one's; strangers see nothing (404).
  { route: 'GET /transactions',                                       cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.pendingTrade()) },
  { route: 'GET /transactions/count',                                 cells: [401,      'sees',  'blind', 'sees'], call: listOf((w) => w.pendingTrade()) },
  { route: 'GET /transactions/{id}',                                  cells: [401,      200,     404,     200], call: byId((w) => w.pendingTrade()) },
  { route: 'POST /transactions/{id}/accept',                          cells: [401,      403,     404,     200], call: byId((w) => w.pendingTrade()) },
  { route: 'POST /transactions/{id}/decline',                         cells: [401,      403,     404,     200], call: byId((w) => w.pendingTrade()) },
  { route: 'POST /transactions/{id}/cancel',                          cells: [401,      200,     404,     200], call: byId((w) => w.pendingTrade()) },

  // Leaderboards: boards are catalog data; every signed-in player scores for their own personas (the
  // default one here), joins and reads; admins delete records (test/leaderboards.e2e-spec.ts has the rest).
  { route: 'GET /leaderboards',                                       cells: [401,      'sees',  'sees',  'sees'], call: listOf(async (w) => (await w.leaderboard()).id) },
  { route: 'GET /leaderboards/count',                                 cells: [401,      'sees',  'sees',  'sees'], call: listOf(async (w) => (await w.leaderboard()).id) },
  { route: 'POST /leaderboards',                                      cells: [401,      403,     403,     201], call: async () => ({ body: { name: `Board ${next()}` } }) },
  { route: 'GET /leaderboards/{id}',                                  cells: [401,      200,     200,     200], call: byId(async (w) => (await w.leaderboard()).id) },
  { route: 'PUT /leaderboards/{id}',                                  cells: [401,      403,     403,     200], call: async (w) => ({ params: { id: (await w.leaderboard()).id }, body: { name: 'Renamed board' } }) },
  { route: 'DELETE /leaderboards/{id}',                               cells: [401,      403,     403,     200], call: byId(async (w) => (await w.leaderboard()).id) },
  { route: 'GET /leaderboards/{id}/periods',                          cells: [401,      'sees',  'sees',  'sees'], call: async (w) => {
      const { id, periodUid } = await w.leaderboard();
      return { params: { id }, query: { uid: periodUid } }; } },
  { route: 'POST /leaderboards/{id}/reset',                           cells: [401,      403,     403,     200], call: byId(async (w) => (await w.leaderboard()).id) },
  { route: 'GET /leaderboards/{id}/periods/{periodId}/payouts',       cells: [401,      403,     403,     200], call: async (w) => {
      const { id, periodUid } = await w.leaderboard();
      return { params: { id, periodId: periodUid } }; } },
  { route: 'POST /leaderboards/{id}/records',                         cells: [401,      200,     200,     200], call: async (w) => ({ params: { id: (await w.leaderboard()).id }, body: { score: 5 } }) },
  { route: 'POST /leaderboards/{id}/join',                            cells: [401,      200,     200,     200], call: byId(async (w) => (await w.leaderboard()).id) },
  { route: 'GET /leaderboards/{id}/records',                          cells: [401,      200,     200,     200], call: byId(async (w) => (await w.leaderboard()).id) },
  { route: 'GET /leaderboards/{id}/records/me',                       cells: [401,      200,     200,     200], call: byId(async (w) => (await w.leaderboard()).id) },
  { route: 'GET /leaderboards/{id}/records/around/{personaUid}',      cells: [401,      200,     200,     200], call: async (w) => {
      const { id, personaUid } = await w.leaderboard();
      return { params: { id, personaUid } }; } },
  { route: 'DELETE /leaderboards/{id}/records/{personaUid}',          cells: [401,      403,     403,     204], call: async (w) => {
      const { id, personaUid } = await w.leaderboard();
      return { params: { id, personaUid } }; } },
  { route: 'GET /personas/{personaUid}/leaderboard-records',          cells: [401,      200,     403,     200], call: async (w) => ({
      params: { personaUid: (await w.leaderboard()).personaUid } }) },
  { route: 'DELETE /personas/{personaUid}/leaderboard-records',       cells: [401,      403,     403,     204], call: async (w) => ({
      params: { personaUid: (await w.leaderboard()).personaUid } }) },

  // Realtime: every signed-in user opens their own socket and reads their own inbox (test/realtime.e2e-spec.ts
  // shows that nobody receives another's events).
  { route: 'POST /realtime/tickets',                                  cells: [401,      201,     201,     201] },
  { route: 'GET /notifications',                                      cells: [401,      200,     200,     200] },

  // Skill progress: public reads (optional auth), writes by the persona's owner or an admin (403 to
  // others: acting for a persona names it on purpose), anonymous writes 401 (ANONYMOUS_WRITES is off).
  { route: 'GET /personas/{personaUid}/skills',                       cells: ['sees',   'sees',  'sees',  'sees'], call: inSkill },
  { route: 'GET /personas/{personaUid}/skills/count',                 cells: ['sees',   'sees',  'sees',  'sees'], call: inSkill },
  { route: 'GET /personas/{personaUid}/archetypes/{archetypeUid}/skills',
                                                                      cells: ['sees',   'sees',  'sees',  'sees'], call: inSkill },
  { route: 'GET /personas/{personaUid}/archetypes/{archetypeUid}/skills/count',
                                                                      cells: ['sees',   'sees',  'sees',  'sees'], call: inSkill },
  { route: 'GET /personas/{personaUid}/archetypes/{archetypeUid}/skills/{skillUid}',
                                                                      cells: [200,      200,     200,     200], call: inSkill },
  { route: 'POST /personas/{personaUid}/archetypes/{archetypeUid}/skills/{skillUid}/progress',
                                                                      cells: [401,      204,     403,     204], call: async (w) => ({ ...(await inSkill(w)), body: { value: 2 } }) },
  { route: 'DELETE /personas/{personaUid}/archetypes/{archetypeUid}/skills/{skillUid}',
                                                                      cells: [401,      200,     403,     200], call: inSkill },
  { route: 'DELETE /personas/{personaUid}/archetypes/{archetypeUid}/skills',
                                                                      cells: [401,      200,     403,     200], call: inSkill },

  // Cloud save: the owner's objects; players change their own, admins anyone's (and the protected class,
  // permissionWrite NONE); reads as each object's permissionRead says (NONE: admins only).
  { route: 'PUT /storage',                                            cells: [401,      200,     403,     200], call: storageBatch({}, { n: 1 }) },
  { route: 'PUT /storage', variant: 'permissionWrite NONE',           cells: [401,      403,     403,     200], call: storageBatch({ permissionWrite: 'NONE' }, { n: 1 }) },
  { route: 'DELETE /storage',                                         cells: [401,      204,     403,     204], call: storageBatch({}) },
  { route: 'DELETE /storage', variant: 'permissionWrite NONE',        cells: [401,      403,     403,     204], call: storageBatch({ permissionWrite: 'NONE' }) },
  { route: 'POST /storage/read',                                      cells: [401,      'sees',  'blind', 'sees'], call: storageBatch({}), seen: someObjects },
  { route: 'POST /storage/read', variant: 'permissionRead PUBLIC',    cells: [401,      'sees',  'sees',  'sees'], call: storageBatch({ permissionRead: 'PUBLIC' }), seen: someObjects },
  { route: 'POST /storage/read', variant: 'permissionRead NONE',      cells: [401,      'blind', 'blind', 'sees'], call: storageBatch({ permissionRead: 'NONE' }), seen: someObjects },
  { route: 'GET /storage',                                            cells: [401,      403,     403,     200], call: async (w) => ({ query: { ownerUid: (await w.storageObject(), w.owner.uid) } }) },
  { route: 'GET /storage/{collection}',                               cells: [401,      'sees',  'blind', 'sees'], call: storagePath(), seen: someObjects },
  { route: 'GET /storage/{collection}', variant: 'permissionRead PUBLIC',
                                                                      cells: [401,      'sees',  'sees',  'sees'], call: storagePath({ permissionRead: 'PUBLIC' }), seen: someObjects },
  { route: 'GET /storage/{collection}/{key}',                         cells: [401,      200,     404,     200], call: storagePath() },
  { route: 'GET /storage/{collection}/{key}', variant: 'permissionRead NONE',
                                                                      cells: [401,      404,     404,     200], call: storagePath({ permissionRead: 'NONE' }) },
  { route: 'GET /admin/storage/{collection}/count',                   cells: [401,      403,     403,     'sees'], call: storagePath() },

  // Media and text assets: catalog data.
  { route: 'GET /assets/media',                                       cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.mediaAsset()) },
  { route: 'GET /assets/media/count',                                 cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.mediaAsset()) },
  { route: 'POST /assets/media',                                      cells: [401,      403,     403,     201], call: async () => ({ body: mediaBody() }) },
  { route: 'GET /assets/media/{id}',                                  cells: [401,      200,     200,     200], call: byId((w) => w.mediaAsset()) },
  { route: 'PUT /assets/media/{id}',                                  cells: [401,      403,     403,     200], call: async (w) => ({ params: { id: await w.mediaAsset() }, body: { name: 'Renamed art' } }) },
  { route: 'DELETE /assets/media/{id}',                               cells: [401,      403,     403,     204], call: byId((w) => w.mediaAsset()) },
  { route: 'PUT /assets/media/{id}/files/{variant}',                  cells: [401,      403,     403,     200], call: async (w) => ({
      params: { id: await w.mediaAsset(), variant: 'icon' }, body: `bytes ${next()}`, type: 'text/plain' }) },
  { route: 'DELETE /assets/media/{id}/files/{variant}',               cells: [401,      403,     403,     200], call: async (w) => ({
      params: { id: (await w.mediaFile()).id, variant: 'icon' } }) },
  // Without an S3 store (this app keeps files on its disk) there are no direct uploads.
  { route: 'POST /assets/media/{id}/files/{variant}/uploads',         cells: [401,      403,     403,     409], call: async (w) => ({
      params: { id: await w.mediaAsset(), variant: 'icon' }, body: { mimetype: 'image/png', name: 'a.png', sha256sum: 'ab'.repeat(32), size: 10 } }) },
  { route: 'POST /assets/media/{id}/files/{variant}/uploads/{uploadId}/complete',
                                                                      cells: [401,      403,     403,     404], call: async (w) => ({
      params: { id: await w.mediaAsset(), variant: 'icon', uploadId: '7c0e6f0a-3b1d-4f5e-9a2b-8c4d6e1f0a3b' } }) },
  // Uploaded files are public (MEDIA_PUBLIC=true by default): game clients and CDNs fetch them without a token.
  { route: 'GET /media/{type}/{subtype}/{sha256}',                    cells: [200,      200,     200,     200], call: async (w) => ({ params: await w.mediaFile() }) },
  { route: 'HEAD /media/{type}/{subtype}/{sha256}',                   cells: [200,      200,     200,     200], call: async (w) => ({ params: await w.mediaFile() }) },
  { route: 'GET /assets/text',                                        cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.textAsset()) },
  { route: 'GET /assets/text/count',                                  cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.textAsset()) },
  { route: 'POST /assets/text',                                       cells: [401,      403,     403,     201], call: async () => ({ body: textBody() }) },
  { route: 'GET /assets/text/{id}',                                   cells: [401,      200,     200,     200], call: byId((w) => w.textAsset()) },
  { route: 'GET /assets/text/{id}/resolve',                           cells: [401,      200,     200,     200], call: async (w) => ({ params: { id: await w.textAsset() }, query: { lang: 'pt-BR' } }) },
  { route: 'PUT /assets/text/{id}',                                   cells: [401,      403,     403,     200], call: async (w) => ({ params: { id: await w.textAsset() }, body: { name: 'Renamed text' } }) },
  { route: 'DELETE /assets/text/{id}',                                cells: [401,      403,     403,     204], call: byId((w) => w.textAsset()) },

  // Achievements: catalog definitions (create and count take optional auth); unlocks are each user's own,
  // and GET /achievements/unlocked answers "what have I unlocked", for admins too.
  { route: 'GET /achievements',                                       cells: [401,      'sees',  'sees',  'sees'], call: listOf((w) => w.achievement()) },
  { route: 'GET /achievements/count',                                 cells: ['sees',   'sees',  'sees',  'sees'], call: listOf((w) => w.achievement()) },
  { route: 'POST /achievements',                                      cells: [401,      403,     403,     201], call: async () => ({ body: { name: `Slayer ${next()}` } }) },
  { route: 'GET /achievements/unlocked',                              cells: [401,      'sees',  'blind', 'blind'], call: listOf((w) => w.ownerUnlock) },
  { route: 'GET /achievements/{id}',                                  cells: [401,      200,     200,     200], call: byId((w) => w.achievement()) },
  { route: 'PUT /achievements/{id}',                                  cells: [401,      403,     403,     200], call: async (w) => ({ params: { id: await w.achievement() }, body: { description: 'Harder' } }) },
  { route: 'DELETE /achievements/{id}',                               cells: [401,      403,     403,     200], call: byId((w) => w.achievement()) },
  { route: 'GET /achievements/{id}/unlock',                           cells: [401,      200,     200,     200], call: byId((w) => w.achievement()) },
  { route: 'DELETE /achievements',                                    cells: [401,      403,     403,     200], last: true },

  // Signing out everywhere ends the sessions the other rows use: after all of them.
  { route: 'POST /auth/logout-all',                                   cells: [401,      204,     204,     204], call: ownSession, last: true },
];

function mediaBody() {
  return { name: `Art ${next()}`, files: { default: { mimetype: 'image/png', name: 'art.png', uri: 'https://cdn.example.com/art.png' } } };
}

function textBody() {
  return { name: `Greeting ${next()}`, text: { default: 'Hello', pt: 'Olá' } };
}

/** `GET /items/{id}` with `{ id }` → `/items/<id>`; a parameter the call does not give is an error in the table. */
function pathOf(route: string, params: Record<string, string> = {}): string {
  const template = route.slice(route.indexOf(' ') + 1);
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (params[name] === undefined) throw new Error(`${route}: the row gives no value for {${name}}`);
    return encodeURIComponent(params[name]);
  });
}

/** Every operation of the OpenAPI document as `METHOD /path`. */
function documentedRoutes(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

async function startIntrospection(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const match = /^idp2-(.+)$/.exec(new URLSearchParams(body).get('token') ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(match ? { active: true, sub: `matrix-${match[1]}` } : { active: false }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('access matrix: every route × anonymous, owner, other user, admin', () => {
  let api: TestApp;
  let introspection: Server;
  let world: World;
  let routes: string[];

  const ok = async <T = any>(response: Promise<TestResponse<T>>, status = 201): Promise<T> => {
    const answer = await response;
    if (answer.status !== status) throw new Error(`fixture failed with ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  const player = (subject: string): Promise<Player> => api.signInWithPersona(subject);

  beforeAll(async () => {
    introspection = await startIntrospection();
    api = await TestApp.start({
      IDP2_INTROSPECTION_URL: `http://127.0.0.1:${(introspection.address() as AddressInfo).port}/introspect`,
      IDP2_CLIENT_ID: 'game-backend',
      IDP2_CLIENT_SECRET: 'matrix-introspection-secret',
      // The table queues the owner on many tickets at once; one queue place per player has its own tests.
      MATCHMAKER_TICKETS_PER_USER: '100',
    });
    routes = documentedRoutes((await api.get('/docs-json')).body);

    const [owner, other, admin, partner] = await Promise.all(['matrix-owner', 'matrix-other', 'admin', 'matrix-partner'].map(player));
    const as = (who: Player) => ({ token: who.token });
    const created = async (path: string, body: unknown, who: Player = admin) => (await ok(api.post(path, body, as(who)))).uid as string;
    const award = (who: Player, itemUid: string, quantity: number) =>
      ok(
        api.post(
          '/inventories/transaction',
          { type: 'AWARD', personaOneUid: who.personaUid, personaOneInventoryItems: [{ itemUid, quantity }] },
          as(admin),
        ),
        200,
      );

    const catalogItem = await created('/items', { name: 'Matrix potion' });
    const awarded = await award(owner, catalogItem, 1_000);
    await award(partner, catalogItem, 1_000);
    const ownerInventoryRow = awarded.personaOneInventoryItemsAfter[0].uid as string;
    const definition = await created('/achievements', { name: 'First blood' });
    const ownerUnlock = (await ok(api.get(`/achievements/${definition}/unlock`, as(owner)), 200)).uid as string;

    world = {
      owner,
      other,
      admin,
      partner,
      catalogItem,
      ownerInventoryRow,
      ownerUnlock,
      item: () => created('/items', { name: `Shield ${next()}` }),
      mediaAsset: () => created('/assets/media', mediaBody()),
      mediaFile: async () => {
        const id = await created('/assets/media', mediaBody());
        const upload = { body: `file ${next()}`, token: admin.token, headers: { 'content-type': 'text/plain' } };
        const uploaded = await ok(api.request('PUT', `/assets/media/${id}/files/icon`, upload), 200);
        const [, , type, subtype, sha256] = new URL((uploaded.files as Record<string, { uri: string }>).icon.uri).pathname.split('/');
        return { id, type, subtype, sha256 };
      },
      textAsset: () => created('/assets/text', textBody()),
      achievement: () => created('/achievements', { name: `Explorer ${next()}` }),
      gameSession: (visibility) => created('/sessions', { numTeams: 2, teamSize: 2, visibility }, owner),
      session: async (role) => {
        const opened = await api.openSession(role === 'admin' ? 'admin' : `matrix-${role === 'anonymous' ? 'owner' : role}`);
        return { ...opened, uid: decodeJwt<{ sid: string }>(opened.token).sid };
      },
      user: async () => (await api.signInPlayer(`matrix-banned-${next()}`)).uid,
      storageObject: async (permissions = {}) => {
        const ref = { collection: `matrix-${next()}`, key: 'save' };
        await ok(api.put('/storage', { objects: [{ ...ref, value: { level: 1 }, ownerUid: owner.uid, ...permissions }] }, as(admin)), 200);
        return ref;
      },
      linkedDevice: async (role) => {
        const deviceId = randomUUID();
        if (role !== 'anonymous') await ok(api.post('/account/link/device', { deviceId }, as(world[role])), 200);
        return deviceId;
      },
      idp1Token: (role) => api.providerToken(role === 'admin' ? 'admin' : `matrix-${role === 'anonymous' ? 'owner' : role}`),
      userWithDevice: async () => {
        const user = await api.signInPlayer(`matrix-linked-${next()}`);
        await ok(api.post('/account/link/device', { deviceId: randomUUID() }, { token: user.token }), 200);
        return user.uid;
      },
      leaderboard: async () => {
        const id = await created('/leaderboards', { name: `Ladder ${next()}` });
        const record = await ok(api.post(`/leaderboards/${id}/records`, { score: 10 }, as(owner)), 200);
        return { id, periodUid: record.periodUid as string, personaUid: owner.personaUid };
      },
      auditEntry: async () => (await ok(api.get('/admin/audit?limit=1', as(admin)), 200))[0].id as string,
      ticket: () => created('/tickets', { numTeams: 2 }, owner),
      partyTicket: () => created('/tickets', { numTeams: 2, teamSize: 2, users: [owner.uid, partner.uid] }, owner),
      pendingTrade: async () => {
        const trade = await ok(
          api.post(
            '/inventories/transaction',
            {
              personaOneUid: owner.personaUid,
              personaTwoUid: partner.personaUid,
              personaOneInventoryItems: [{ itemUid: catalogItem, quantity: 1 }],
              personaTwoInventoryItems: [{ itemUid: catalogItem, quantity: 1 }],
            },
            as(owner),
          ),
          200,
        );
        if (trade.status !== 'PENDING') throw new Error(`the trade is ${trade.status}, not PENDING`);
        return trade.uid as string;
      },
      skill: async () => {
        const path = { personaUid: owner.personaUid, archetypeUid: `${ARCHETYPE}-${next()}`, skillUid: 'swordplay' };
        await ok(
          api.post(
            `/personas/${path.personaUid}/archetypes/${path.archetypeUid}/skills/${path.skillUid}/progress`,
            { value: 1 },
            as(owner),
          ),
          204,
        );
        const [progress] = await ok(api.get(`/personas/${path.personaUid}/archetypes/${path.archetypeUid}/skills`), 200);
        return { ...path, uid: progress.uid as string };
      },
    };
  });

  afterAll(async () => {
    await api?.close();
    introspection?.closeAllConnections();
    await new Promise<void>((resolve) => introspection?.close(() => resolve()));
  });

  it('has a row for every route of the OpenAPI document, and none for a route it lacks', () => {
    const classified = new Set(TABLE.map((row) => row.route));
    expect(routes.filter((route) => !classified.has(route))).toEqual([]);
    expect([...classified].filter((route) => !routes.includes(route))).toEqual([]);
    expect(routes.length).toBeGreaterThanOrEqual(70);
  });

  it('answers every cell as the table says, and a refused request changes nothing', async () => {
    const credential = async (row: Row, role: Role): Promise<Record<string, string>> => {
      if (role === 'anonymous') return {};
      const subject = role === 'admin' ? 'admin' : `matrix-${role}`;
      switch (row.credential ?? 'jwt') {
        case 'idp1':
          return { authorization: `jwt ${await api.providerToken(subject)}` };
        case 'idp2':
          return { authorization: `jwt idp2-${role}` };
        default:
          return { authorization: `jwt ${world[role].token}` };
      }
    };

    const mismatches: string[] = [];
    let cells = 0;
    const ordered = [...TABLE.filter((row) => !row.last), ...TABLE.filter((row) => row.last)];
    for (const row of ordered) {
      for (const [index, role] of ROLES.entries()) {
        const expected = row.cells[index];
        const { params, query, body, headers, type } = (await row.call?.(world, role)) ?? {};
        const url = pathOf(row.route, params) + (query ? `?${new URLSearchParams(query).toString()}` : '');
        const before: DataChecksum = await dataChecksum(api.database);
        const sent = { ...(headers ?? (await credential(row, role))), ...(type && { 'content-type': type }) };
        const response = await api.request(row.route.split(' ')[0], url, { body, headers: sent });
        cells += 1;

        let got: Cell = response.status;
        if ((expected === 'sees' || expected === 'blind') && response.status === 200) {
          const found = row.seen
            ? row.seen(response.body)
            : Array.isArray(response.body)
              ? response.body.some((record: { uid?: string }) => record.uid === query?.uid)
              : response.body.count > 0;
          got = found ? 'sees' : 'blind';
        }
        const label = `${row.route}${row.variant ? ` [${row.variant}]` : ''} as ${role}`;
        if (got !== expected) mismatches.push(`${label}: expected ${expected}, got ${got} ${JSON.stringify(response.body).slice(0, 200)}`);
        if (response.status >= 400) {
          const after = await dataChecksum(api.database);
          if (JSON.stringify(after) !== JSON.stringify(before))
            mismatches.push(`${label}: refused with ${response.status} but changed data`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(cells).toBe(TABLE.length * ROLES.length);
  }, 120_000);
});
