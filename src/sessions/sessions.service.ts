import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type Repository, type SelectQueryBuilder } from 'typeorm';
import type { Caller } from '../common/auth.decorators.js';
import { assertHostOrAdmin, badRequest, conflict, ErrorCode, forbidden, notFound } from '../common/errors.js';
import { COMMON_FIELDS, type QueryableFields } from '../common/list-query.js';
import { writableFields } from '../common/record.dto.js';
import { ALIAS, column, RecordService } from '../common/record.service.js';
import type { CreateSessionDto } from './dto/create-session.dto.js';
import type { UpdateSessionDto } from './dto/update-session.dto.js';
import { buildRoster, emptyTeams, type Roster, seat, unseat } from './roster.js';
import { hashSessionPassword, verifySessionPassword } from './session-password.js';
import { Session, SESSION_STATUSES, SESSION_VISIBILITIES } from './session.entity.js';

export const SESSION_FIELDS = {
  ...COMMON_FIELDS,
  status: { enum: SESSION_STATUSES },
  visibility: { enum: SESSION_VISIBILITIES },
  numTeams: 'integer',
  teamSize: 'integer',
  hostUid: 'uuid',
  serverUid: 'uuid',
} as const satisfies QueryableFields;

const MAX_CAPACITY = 10_000;

@Injectable()
export class SessionsService extends RecordService<Session> {
  protected readonly recordName = 'session';

  constructor(
    @InjectRepository(Session) repository: Repository<Session>,
    private readonly dataSource: DataSource,
  ) {
    super(repository);
  }

  /** PUBLIC sessions to everyone signed in; the others to their host, members and invited users; all to admins. */
  protected override scope(query: SelectQueryBuilder<Session>, caller: Caller | undefined): void {
    if (caller?.isAdmin) return;
    query.andWhere(
      `(${column('visibility')} = 'PUBLIC' OR ${column('hostUid')} = :viewer
        OR ${column('users')} @> ARRAY[:viewer]::uuid[] OR ${column('invited')} @> ARRAY[:viewer]::uuid[])`,
      { viewer: caller?.uid ?? null },
    );
  }

  async create(body: CreateSessionDto, caller: Caller): Promise<Session> {
    const fields = writableFields(body);
    checkCapacity(body.numTeams, body.teamSize);
    const roster = buildRoster(body.numTeams, body.teamSize, fields.users ?? [caller.uid], fields.teams);
    const { password, ...rest } = fields;
    const [row] = (
      await this.repository
        .createQueryBuilder()
        .insert()
        .values({
          ...rest,
          ...roster,
          passwordHash: password ? await hashSessionPassword(password) : null,
          hostUid: caller.uid,
        })
        .returning('*')
        .execute()
    ).raw as Session[];
    return this.repository.create(row);
  }

  async update(uid: string, body: UpdateSessionDto, expectedVersion: number | undefined, caller: Caller): Promise<Session> {
    if (body.uid !== undefined && body.uid !== uid) {
      throw badRequest(`uid ${body.uid} in the body does not match the path`, [{ field: 'uid', message: 'does not match the path' }]);
    }
    const { password, ...fields } = writableFields(body);
    const passwordHash = password === undefined ? undefined : password === null ? null : await hashSessionPassword(password);
    return this.dataSource.transaction(async (manager) => {
      const session = await this.lockOne(manager, uid, caller);
      assertHostOrAdmin(session, caller, 'session');
      const numTeams = fields.numTeams ?? session.numTeams;
      const teamSize = fields.teamSize ?? session.teamSize;
      checkCapacity(numTeams, teamSize);
      const roster = rebuildRoster(session, numTeams, teamSize, fields.users, fields.teams);
      return this.updateVersioned(
        uid,
        { ...fields, ...roster, ...(passwordHash !== undefined && { passwordHash }) },
        expectedVersion,
        manager,
      );
    });
  }

  async remove(uid: string, caller: Caller): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      assertHostOrAdmin(await this.lockOne(manager, uid, caller), caller, 'session');
      await this.deleteOne(uid, manager);
    });
  }

  /**
   * Adds the caller to the session and to the first team with room. The row is locked for the whole
   * decision, so two players racing for the last seat are served one after the other.
   */
  async join(uid: string, caller: Caller, password: string | undefined): Promise<Session> {
    return this.dataSource.transaction(async (manager) => {
      const session = await this.lock(manager, uid);
      if (!session) throw notFound('session', uid);
      if (session.users.includes(caller.uid)) return session;
      const invited = session.invited.includes(caller.uid);
      const host = session.hostUid === caller.uid;
      if (!caller.isAdmin && !host) {
        if (session.visibility === 'LOCKED') throw forbidden('this session is locked');
        if (session.visibility === 'INVITE_ONLY' && !invited) throw forbidden('this session is by invitation only');
      }
      if (session.status === 'ENDED') throw conflict(ErrorCode.CONFLICT, 'this session has ended');
      if (session.passwordHash && !caller.isAdmin && !host && !invited) {
        if (password === undefined || !(await verifySessionPassword(password, session.passwordHash))) {
          throw forbidden(password === undefined ? 'this session needs a password (?password=)' : 'wrong session password');
        }
      }
      const seated = seat({ users: session.users, teams: session.teams }, caller.uid, session.teamSize);
      if (!seated) throw conflict(ErrorCode.CONFLICT, 'this session is full');
      return this.updateVersioned(uid, seated, undefined, manager);
    });
  }

  /** Removes the caller from the session; when the host leaves, the next member becomes host. */
  async leave(uid: string, caller: Caller): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const session = await this.lockOne(manager, uid, caller);
      if (!session.users.includes(caller.uid)) return;
      const roster = unseat({ users: session.users, teams: session.teams }, caller.uid);
      const hostUid = session.hostUid === caller.uid && roster.users.length > 0 ? roster.users[0] : session.hostUid;
      await this.updateVersioned(uid, { ...roster, hostUid }, undefined, manager);
    });
  }

  /** Unscoped: join answers an INVITE_ONLY or LOCKED session with 403 (CONTRACT.md section 7), not 404. */
  private lock(manager: EntityManager, uid: string): Promise<Session | null> {
    return manager
      .createQueryBuilder(Session, ALIAS)
      .where(`${column('uid')} = :uid`, { uid })
      .setLock('pessimistic_write')
      .getOne();
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
