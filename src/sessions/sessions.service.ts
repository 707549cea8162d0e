import { Injectable } from '@nestjs/common';
import type { Caller } from '../common/auth.decorators.js';
import { badRequest, conflict, ErrorCode, notFound } from '../common/errors.js';
import { writableFields, type WritableFields } from '../common/record.dto.js';
import { RecordService } from '../common/record.service.js';
import type { CreateSessionDto } from './dto/create-session.dto.js';
import type { UpdateSessionDto } from './dto/update-session.dto.js';
import { buildRoster, depart, emptyTeams, type Roster, seat } from './roster.js';
import { hashSessionPassword } from './session-password.js';
import type { Session } from './session.entity.js';
import { requireMayChangeSession, requireMayEnterSession, requireSessionPassword } from './sessions.policy.js';
import { SessionsRepository } from './sessions.repository.js';

const MAX_CAPACITY = 10_000;

@Injectable()
export class SessionsService extends RecordService<Session> {
  constructor(private readonly sessions: SessionsRepository) {
    super(sessions);
  }

  /** The caller hosts the new session and, unless `users` says otherwise, is its first member. */
  async create(body: CreateSessionDto, caller: Caller): Promise<Session> {
    const { password, ...fields } = writableFields(body);
    checkCapacity(body.numTeams, body.teamSize);
    const roster = buildRoster(body.numTeams, body.teamSize, fields.users ?? [caller.uid], fields.teams);
    return this.sessions.insert({
      ...fields,
      ...roster,
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
      const roster = rebuildRoster(session, numTeams, teamSize, fields.users, fields.teams);
      return this.sessions.updateVersioned(
        uid,
        { ...fields, ...roster, ...(passwordHash !== undefined && { passwordHash }) },
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
   * decision, so two players racing for the last seat are served one after the other.
   */
  async join(uid: string, caller: Caller, password: string | undefined): Promise<Session> {
    return this.sessions.transaction(async (transaction) => {
      const session = await this.sessions.lockForJoin(transaction, uid);
      if (!session) throw notFound('session', uid);
      if (session.users.includes(caller.uid)) return session;
      requireMayEnterSession(caller, session);
      if (session.status === 'ENDED') throw conflict(ErrorCode.CONFLICT, 'this session has ended');
      await requireSessionPassword(caller, session, password);
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
      await this.sessions.removeMembers(transaction, uid, depart(session, [caller.uid]), [caller.uid]);
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
}

function checkCapacity(numTeams: number, teamSize: number): void {
  if (numTeams * teamSize > MAX_CAPACITY) {
    throw badRequest(`numTeams × teamSize must not exceed ${MAX_CAPACITY}`, [
      { field: 'teamSize', message: `capacity above ${MAX_CAPACITY}` },
    ]);
  }
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
