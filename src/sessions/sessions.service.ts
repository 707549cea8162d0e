import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest, conflict, ErrorCode, forbidden, notFound, unknownUsers } from '../common/errors.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import { RecordService } from '../database/record.service.js';
import type { CreateSessionDto } from './dto/create-session.dto.js';
import type { UpdateSessionDto } from './dto/update-session.dto.js';
import { UsersRepository } from '../auth/users/users.repository.js';
import { LIMITS } from '../common/limits.js';
import { admit, buildRoster, checkTeams, depart, emptyTeams, type Roster, seat } from './roster.js';
import { SessionPasswordAttempts } from './session-password-attempts.js';
import { hashSessionPassword, verifySessionPassword } from './session-password.js';
import type { Session } from './session.entity.js';
import { needsPassword, requireMayChangeSession, requireMayJoinSession } from './sessions.policy.js';
import { SessionsRepository } from './sessions.repository.js';

@Injectable()
export class SessionsService extends RecordService<Session> {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly users: UsersRepository,
    private readonly passwordAttempts: SessionPasswordAttempts,
  ) {
    super(sessions);
  }

  /**
   * The caller hosts the new session and, unless `users` says otherwise, is its first member. Nobody
   * else is seated without consent: other users named in `users` or `teams` are invited instead.
   */
  async create(body: CreateSessionDto, caller: Caller): Promise<Session> {
    const { password, ...fields } = writableFields(body);
    checkCapacity(body.numTeams, body.teamSize);
    if (fields.teams) checkTeams(body.numTeams, body.teamSize, fields.teams);
    const admitted = admit(fields.users ?? [caller.uid], fields.teams, (user) => caller.isAdmin || user === caller.uid);
    const roster = buildRoster(body.numTeams, body.teamSize, admitted.users, admitted.teams);
    const invited = inviteList(fields.invited ?? [], admitted.invite);
    await this.requireUsersExist(namedMembers(fields), fields.invited ?? []);
    return this.sessions.insert({
      ...fields,
      ...roster,
      invited,
      passwordHash: password ? await hashSessionPassword(password) : null,
      hostUid: caller.uid,
    });
  }

  async update(uid: string, body: WritableFields<UpdateSessionDto>, expectedVersion: number | undefined, caller: Caller): Promise<Session> {
    const { password, ...fields } = body;
    const passwordHash = password === undefined ? undefined : password === null ? null : await hashSessionPassword(password);
    return this.sessions.transaction(async (transaction) => {
      const session = await this.sessions.lockOne(transaction, uid, caller);
      requireMayChangeSession(caller, session);
      const numTeams = fields.numTeams ?? session.numTeams;
      const teamSize = fields.teamSize ?? session.teamSize;
      checkCapacity(numTeams, teamSize);
      if (fields.teams) checkTeams(numTeams, teamSize, fields.teams);
      // Members may be moved or removed, and the caller may seat themselves; anyone else is invited.
      const seated = new Set(session.users);
      const admitted = admit(
        fields.users ?? session.users,
        fields.teams,
        (user) => caller.isAdmin || user === caller.uid || seated.has(user),
      );
      const roster = rebuildRoster(session, numTeams, teamSize, fields.users && admitted.users, fields.teams && admitted.teams);
      const invited =
        fields.invited || admitted.invite.length > 0 ? inviteList(fields.invited ?? session.invited, admitted.invite) : undefined;
      const alreadyKnown = new Set([...session.users, ...session.invited]);
      const unknownYet = (user: string) => !alreadyKnown.has(user);
      await this.requireUsersExist(namedMembers(fields).filter(unknownYet), (fields.invited ?? []).filter(unknownYet));
      return this.sessions.updateVersioned(
        uid,
        { ...fields, ...roster, ...(invited && { invited }), ...(passwordHash !== undefined && { passwordHash }) },
        expectedVersion,
        transaction,
      );
    });
  }

  async remove(uid: string, caller: Caller): Promise<void> {
    await this.sessions.transaction(async (transaction) => {
      requireMayChangeSession(caller, await this.sessions.lockOne(transaction, uid, caller));
      await this.sessions.deleteOne(uid, transaction);
    });
  }

  /**
   * Adds the caller to the session and to the first team with room. The row is locked for the whole
   * decision, so two players racing for the last seat are served one after the other. The password is
   * checked first, outside the lock: a guess costs an scrypt hash, which must not hold up the session.
   */
  async join(uid: string, caller: Caller, password: string | undefined): Promise<Session> {
    const checked = await this.checkPassword(uid, caller, password);
    return this.sessions.transaction(async (transaction) => {
      const session = await this.sessions.lockForJoin(transaction, uid);
      if (!session) throw notFound('session', uid);
      if (session.users.includes(caller.uid)) return session;
      requireMayJoinSession(caller, session);
      // Changed between the check and the lock: checked again.
      if (session.passwordHash !== checked) await this.checkPassword(uid, caller, password);
      const seated = seat({ users: session.users, teams: session.teams }, caller.uid, session.teamSize);
      if (!seated) throw conflict(ErrorCode.CONFLICT, 'this session is full');
      return this.sessions.updateVersioned(uid, seated, undefined, transaction);
    });
  }

  /**
   * Removes the caller from the session; when the host leaves, the next member becomes host, and a
   * session still waiting for players that the last member leaves ends.
   */
  async leave(uid: string, caller: Caller): Promise<void> {
    await this.sessions.transaction(async (transaction) => {
      const session = await this.sessions.lockOne(transaction, uid, caller);
      if (!session.users.includes(caller.uid)) return;
      await this.sessions.removeMembers(transaction, uid, depart(session, [caller.uid]));
    });
  }

  /** The caller is still in the session (lobby liveness): members silent for SESSION_MEMBER_TIMEOUT are removed. */
  async heartbeat(uid: string, caller: Caller): Promise<void> {
    if (await this.sessions.heartbeat(uid, caller.uid)) return;
    const session = await this.sessions.findOne(uid, caller);
    throw conflict(
      ErrorCode.CONFLICT,
      session.status === 'ENDED' ? 'this session has ended' : 'you are not a member of this session (join it first)',
    );
  }

  /**
   * The join rules a wrong password must not skip (visibility, status), then the password itself, with
   * the guesses counted (SESSION_PASSWORD_ATTEMPTS). Answers the password hash the caller got past
   * (null: none was asked of them).
   */
  private async checkPassword(uid: string, caller: Caller, password: string | undefined): Promise<string | null> {
    const session = await this.sessions.findForJoin(uid);
    if (!session) throw notFound('session', uid);
    if (session.users.includes(caller.uid) || !needsPassword(caller, session)) return session.passwordHash;
    requireMayJoinSession(caller, session);
    if (password === undefined) throw forbidden('this session needs a password (the X-Session-Password header)');
    await this.passwordAttempts.requireAttemptsLeft(uid, caller.uid);
    if (!(await verifySessionPassword(password, session.passwordHash!))) {
      await this.passwordAttempts.wrongPassword(uid, caller.uid);
      throw forbidden('wrong session password');
    }
    return session.passwordHash;
  }

  /** Every uid must name a user (400 naming those that do not, and the field they were in). */
  private async requireUsersExist(members: string[], invited: string[]): Promise<void> {
    const unknown = await this.users.unknownUids([...members, ...invited]);
    if (unknown.length > 0) throw unknownUsers(unknown, members.includes(unknown[0]) ? 'users' : 'invited');
  }
}

function checkCapacity(numTeams: number, teamSize: number): void {
  if (numTeams * teamSize > LIMITS.sessionPlayers) {
    throw badRequest(`numTeams × teamSize must not exceed ${LIMITS.sessionPlayers}`, [
      { field: 'teamSize', message: `capacity above ${LIMITS.sessionPlayers}` },
    ]);
  }
}

/** The users a body names as members, in `users` or in `teams`. */
const namedMembers = (fields: { users?: string[]; teams?: Roster['teams'] }) => [
  ...(fields.users ?? []),
  ...(fields.teams ?? []).flatMap((team) => team.members),
];

/** The invitations after a write: those asked for, plus users named as members who had not joined. */
function inviteList(asked: string[], moved: string[]): string[] {
  const invited = [...new Set([...asked, ...moved])];
  if (invited.length > LIMITS.sessionInvited) {
    throw badRequest(`a session invites at most ${LIMITS.sessionInvited} users (users named who have not joined are invited)`, [
      { field: 'invited', message: `more than ${LIMITS.sessionInvited} users` },
    ]);
  }
  return invited;
}
/**
 * The roster after an update. Teams sent are taken as they are (and checked); otherwise members keep
 * their seats where the new shape allows it (same number of teams, within the new teamSize) and everyone
 * else is seated on the first team with room. Undefined when nothing about the roster changed.
 */
function rebuildRoster(
  session: Session,
  numTeams: number,
  teamSize: number,
  users: string[] | undefined,
  teams: Roster['teams'] | undefined,
): Roster | undefined {
  if (!users && !teams && numTeams === session.numTeams && teamSize === session.teamSize) return undefined;
  const members = users ?? session.users;
  if (teams) return buildRoster(numTeams, teamSize, members, teams);
  const kept = (numTeams === session.numTeams ? session.teams : emptyTeams(numTeams)).map((team) => ({
    ...team,
    members: team.members.filter((member) => members.includes(member)).slice(0, teamSize),
  }));
  return buildRoster(numTeams, teamSize, members, kept);
}
