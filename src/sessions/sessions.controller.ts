import { Body, Controller, Get, Headers, HttpCode, Query } from '@nestjs/common';
import { Delete, Post, Put, Writes } from '../audit/audited-routes.js';
import { AuditedRecord } from '../audit/audit.decorators.js';
import { ApiBody, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { AdminOnly } from '../common/policy.js';
import type { ListQuery } from '../common/list-query.js';
import type { CountDto } from '../common/record.dto.js';
import { CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import { ApiErrors, ApiUidParam, BodyNodes, IfMatch, ListQueryParam, RecordResponse, UidParam } from '../common/route.decorators.js';
import { recordUpdate } from '../common/versions.js';
import { CreateSessionDto } from './dto/create-session.dto.js';
import { JoinSessionQuery } from './dto/join-session-query.js';
import { UpdateSessionDto } from './dto/update-session.dto.js';
import { Session } from './session.entity.js';
import { SessionsService } from './sessions.service.js';

/** Where a join's password goes (a header stays out of URLs, and so out of every log on the way). */
const SESSION_PASSWORD_HEADER = 'x-session-password';

const SESSION_RULES =
  'Rules no schema states (a 400 names the field): numTeams × teamSize is at most the session capacity; when teams ' +
  'are sent there are exactly numTeams of them, with distinct ids, none over teamSize members and no user in two; ' +
  'users listed only in `users` are seated on the first team with room, and everyone must fit. Nobody is seated ' +
  'without consent: users named in `users` or `teams` who are not members (other than the caller; anyone for an ' +
  'admin) are invited instead (added to `invited`, and told with a `session.invited` event); every uid must name a user.';

@ApiTags('sessions')
@ApiSecurity('jwt')
@ApiErrors(401)
@AuditedRecord(SessionsService)
@Controller('sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @ListDocs(Session, 'List sessions', 'PUBLIC sessions, and the others the caller hosts, plays in or is invited to (an admin sees all).')
  @Get()
  findAll(@ListQueryParam(Session) list: ListQuery, @CurrentCaller() caller: Caller): Promise<Session[]> {
    return this.sessions.findAll(list, caller);
  }

  @FindDocs(Session, 'session')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Session> {
    return this.sessions.findOne(id, caller);
  }

  @CountDocs('Count sessions', 'PUBLIC sessions, and the others the caller hosts, plays in or is invited to (an admin sees all).')
  @Get('count')
  async count(@ListQueryParam(Session) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.sessions.count(list, caller) };
  }

  /** The caller becomes the host and, unless `users` says otherwise, the first member. */
  @ApiOperation({ summary: 'Create a session', description: SESSION_RULES })
  // What "Try it out" fills in: the caller hosts and sits in a public session. The schema's own sample
  // would seat a made-up user instead of the caller, invite another and set a password.
  @ApiBody({
    type: CreateSessionDto,
    examples: {
      public: { summary: 'Host a public session of two teams of four', value: { numTeams: 2, teamSize: 4, visibility: 'PUBLIC' } },
    },
  })
  @RecordResponse(Session, { status: 201 })
  @ApiErrors(400)
  @BodyNodes('large')
  @Post()
  create(@Body() body: CreateSessionDto, @CurrentCaller() caller: Caller): Promise<Session> {
    return this.sessions.create(body, caller);
  }

  @ApiOperation({ summary: 'Delete every session (admins)' })
  @ApiOkResponse({ description: 'All sessions removed; no body.' })
  @ApiErrors(403)
  @AdminOnly()
  @HttpCode(200)
  @Delete()
  async truncate(): Promise<void> {
    await this.sessions.truncate();
  }

  /** Merges the given fields (host or admin). Changing users, teams or the shape re-seats the members. */
  @ApiOperation({
    summary: 'Update a session (host or admin)',
    description: `${SESSION_RULES} They hold for the session as it is after the update.`,
  })
  @ApiUidParam('id', 'session')
  @RecordResponse(Session)
  @ApiErrors(400, 403, 404, 409)
  @BodyNodes('large')
  @Put(':id')
  update(
    @UidParam() id: string,
    @Body() body: UpdateSessionDto,
    @CurrentCaller() caller: Caller,
    @IfMatch() ifMatch?: string,
  ): Promise<Session> {
    const { fields, expectedVersion } = recordUpdate(id, body, ifMatch);
    return this.sessions.update(id, fields, expectedVersion, caller);
  }

  @ApiOperation({ summary: 'Delete a session (host or admin)' })
  @ApiUidParam('id', 'session')
  @ApiOkResponse({ description: 'Deleted; no body.' })
  @ApiErrors(400, 403, 404)
  @HttpCode(200)
  @Delete(':id')
  async remove(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.sessions.remove(id, caller);
  }

  /**
   * Adds the caller to the session, on the first team with room. Joining again changes nothing.
   * The host, invited users and admins need no password.
   */
  @ApiOperation({
    summary: 'Join a session',
    description:
      'A session with a password needs it, in the `X-Session-Password` header (or `?password=`, kept for older clients: ' +
      "a URL may end up in proxies' logs). Wrong passwords are counted per player and per session " +
      '(SESSION_PASSWORD_ATTEMPTS a minute, SESSION_PASSWORD_ATTEMPTS_PER_SESSION): past either, 429 with `Retry-After`.',
  })
  @ApiUidParam('id', 'session')
  @ApiHeader({ name: SESSION_PASSWORD_HEADER, required: false, description: 'The join password, when the session has one.' })
  @RecordResponse(Session)
  @ApiErrors(400, [403, 'FORBIDDEN: wrong or missing password, INVITE_ONLY without an invitation, or LOCKED.'], 404, [
    409,
    'CONFLICT: the session is full or has ended.',
  ])
  @Writes()
  @Get(':id/join')
  join(
    @UidParam() id: string,
    @CurrentCaller() caller: Caller,
    // Typed `string` though it may be absent: reflected as such, the document lists it before the query,
    // as it always has (generated clients keep their parameter order); `string | undefined` reflects as Object.
    @Headers(SESSION_PASSWORD_HEADER) header: string,
    @Query() query: JoinSessionQuery,
  ): Promise<Session> {
    const password = typeof header === 'string' ? header : query.password;
    return this.sessions.join(id, caller, password);
  }

  /**
   * The caller is still in the session. A member shows presence with this or an open /realtime socket;
   * one silent for SESSION_MEMBER_TIMEOUT is removed (the host passes on; an empty session waiting for
   * players ends). Send it every SESSION_MEMBER_TIMEOUT / 3 or so.
   */
  @ApiOperation({ summary: 'Show presence in a session (members)' })
  @ApiUidParam('id', 'session')
  @ApiNoContentResponse({ description: 'Noted; no body.' })
  @ApiErrors(400, 404, [409, 'CONFLICT: the caller is not a member (any more), or the session has ended.'])
  @HttpCode(204)
  @Post(':id/heartbeat')
  async heartbeat(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.sessions.heartbeat(id, caller);
  }

  /**
   * Removes the caller from the session (nothing happens if they were not in it); a leaving host hands
   * over, and a session waiting for players that its last member leaves ends.
   */
  @ApiOperation({ summary: 'Leave a session' })
  @ApiUidParam('id', 'session')
  @ApiOkResponse({ description: 'Left; no body.' })
  @ApiErrors(400, 404)
  @Writes()
  @Get(':id/leave')
  async leave(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.sessions.leave(id, caller);
  }
}
