import { Body, Controller, Get, HttpCode, Query, Res } from '@nestjs/common';
import { Delete, Post, Put } from '../audit/audited-routes.js';
import {
  ApiBody,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Client } from '../auth/client-info.decorator.js';
import type { ClientInfo } from '../auth/sign-in-sessions/sign-in-sessions.repository.js';
import { type Caller, CurrentCaller } from '../common/auth.decorators.js';
import { LIMITS } from '../common/limits.js';
import type { ListQuery } from '../common/list-query.js';
import { AdminOnly } from '../common/policy.js';
import type { CountDto } from '../common/record.dto.js';
import { CatalogDeleteDocs, CatalogUpdateDocs, CountDocs, FindDocs, ListDocs } from '../common/record-routes.js';
import {
  ApiErrors,
  ApiUidParam,
  BodyNodes,
  IfMatch,
  ListQueryParam,
  NEXT_SKIP_HEADER,
  RecordResponse,
  UidParam,
} from '../common/route.decorators.js';
import { expectedVersion, recordUpdate } from '../common/versions.js';
import { CreateLeaderboardDto } from './dto/create-leaderboard.dto.js';
import { LeaderboardPayoutView, LeaderboardRecordView, PersonaLeaderboardRecordView } from './dto/leaderboard-record.dto.js';
import { AroundQuery, PeriodQuery, RecordsQuery, SkipPageQuery } from './dto/record-query.js';
import { JoinLeaderboardDto, SubmitScoreDto } from './dto/submit-score.dto.js';
import { UpdateLeaderboardDto } from './dto/update-leaderboard.dto.js';
import { Leaderboard } from './leaderboard.entity.js';
import { LeaderboardPeriod } from './leaderboard-period.entity.js';
import { LeaderboardRecordsService } from './leaderboard-records.service.js';
import { LeaderboardsService } from './leaderboards.service.js';
import { LeaderboardPeriodsRepository } from './leaderboard-periods.repository.js';
import { AuditedRecord } from '../audit/audit.decorators.js';

const NEXT_CURSOR = {
  'X-Next-Cursor': {
    description: "When more records follow: send it back as `cursor` for the next page, which shows the ranks of the first page's moment.",
    schema: { type: 'string' },
  },
};

@ApiTags('leaderboards')
@ApiSecurity('jwt')
@ApiErrors(401)
@ApiExtraModels(LeaderboardRecordView)
@AuditedRecord(LeaderboardsService)
@Controller('leaderboards')
export class LeaderboardsController {
  constructor(
    private readonly boards: LeaderboardsService,
    private readonly records: LeaderboardRecordsService,
    private readonly periods: LeaderboardPeriodsRepository,
  ) {}

  @ListDocs(Leaderboard, 'List leaderboards and tournaments')
  @Get()
  findAll(@ListQueryParam(Leaderboard) list: ListQuery, @CurrentCaller() caller: Caller): Promise<Leaderboard[]> {
    return this.boards.findAll(list, caller);
  }

  @CountDocs('Count leaderboards')
  @Get('count')
  async count(@ListQueryParam(Leaderboard) list: ListQuery, @CurrentCaller() caller: Caller): Promise<CountDto> {
    return { count: await this.boards.count(list, caller) };
  }

  @FindDocs(Leaderboard, 'leaderboard')
  @Get(':id')
  findById(@UidParam() id: string, @CurrentCaller() caller: Caller): Promise<Leaderboard> {
    return this.boards.findOne(id, caller);
  }

  @ApiOperation({ summary: 'Create a leaderboard or tournament (admins)' })
  @RecordResponse(Leaderboard, { status: 201 })
  @ApiErrors(400, 403)
  @AdminOnly()
  @BodyNodes('large')
  @Post()
  create(@Body() body: CreateLeaderboardDto, @CurrentCaller() caller: Caller): Promise<Leaderboard> {
    return this.boards.create(body, caller);
  }

  @CatalogUpdateDocs(
    Leaderboard,
    'leaderboard',
    'Merges the given fields. 409 IMMUTABLE_SETTING, naming them, for a new value of sortOrder, operator, subscoreSortOrder, ' +
      'subscoreOperator, resetSchedule, startAt, endAt, duration or entrant (their stored value may be sent back).',
  )
  @AdminOnly()
  @BodyNodes('large')
  @Put(':id')
  update(@UidParam() id: string, @Body() body: UpdateLeaderboardDto, @IfMatch() ifMatch?: string): Promise<Leaderboard> {
    const { fields, expectedVersion } = recordUpdate(id, body, ifMatch);
    return this.boards.update(id, fields, expectedVersion);
  }

  @CatalogDeleteDocs('leaderboard', 200, { summary: 'Delete a leaderboard with its periods, records and unpaid prizes (admins)' })
  @AdminOnly()
  @HttpCode(200)
  @Delete(':id')
  async remove(@UidParam() id: string): Promise<void> {
    await this.boards.remove(id);
  }

  @ApiOperation({
    summary: 'Reset a leaderboard now (admins)',
    description:
      'The period open now ends now, as its schedule would end it: the worker closes it LEADERBOARD_CLOSE_DELAY later (final ranks, ' +
      "prizes paid, `leaderboard.period_ended`), and a new, empty period begins at once and runs to the schedule's next time (or for " +
      "the board's duration, or to its end). Send the version read (If-Match): a reset sent twice then resets once (409 VERSION_CONFLICT).",
  })
  @ApiUidParam('id', 'leaderboard')
  @RecordResponse(Leaderboard, { description: 'The board, with its new `resetAt` and version.' })
  @ApiErrors(400, 403, 404, [
    409,
    'VERSION_CONFLICT (If-Match names another version), or NOT_ACTIVE (the board has not begun or has ended: no period to reset).',
  ])
  @AdminOnly()
  @HttpCode(200)
  @Post(':id/reset')
  reset(@UidParam() id: string, @IfMatch() ifMatch?: string): Promise<Leaderboard> {
    return this.boards.reset(id, expectedVersion(undefined, ifMatch));
  }

  @ApiOperation({
    summary: "List a period's prizes (admins)",
    description:
      'What a closed period pays, in rank order: to whom, for which rank, the items, PENDING, PAID (with its AWARD transaction) or FAILED. ' +
      `Pages of up to ${LIMITS.leaderboardPage} with skip.`,
  })
  @ApiUidParam('id', 'leaderboard')
  @ApiUidParam('periodId', 'period')
  @ApiOkResponse({ type: [LeaderboardPayoutView] })
  @ApiErrors(400, 403, [404, 'NOT_FOUND: no such leaderboard, or no such period of it.'])
  @AdminOnly()
  @Get(':id/periods/:periodId/payouts')
  payouts(
    @UidParam() id: string,
    @UidParam('periodId') periodId: string,
    @Query() { skip, limit }: SkipPageQuery,
  ): Promise<LeaderboardPayoutView[]> {
    return this.boards.prizes(id, periodId.toLowerCase(), skip, limit);
  }

  @ListDocs(
    LeaderboardPeriod,
    "List a leaderboard's periods",
    "The periods that exist: made by their first score or join. Closed ones are kept up to the board's keepPeriods.",
  )
  @ApiUidParam('id', 'leaderboard')
  @ApiErrors(404)
  @Get(':id/periods')
  async periodsOf(
    @UidParam() id: string,
    @ListQueryParam(LeaderboardPeriod) list: ListQuery,
    @CurrentCaller() caller: Caller,
  ): Promise<LeaderboardPeriod[]> {
    await this.boards.findOne(id, caller);
    return this.periods.findAll({ ...list, filters: [...list.filters, { field: 'leaderboardUid', operator: 'eq', values: [id] }] }, caller);
  }

  @ApiOperation({
    summary: 'Submit a score',
    description:
      "Applies the board's operators to the persona's record in the period open now and answers it with its rank. " +
      'Scores are 64-bit integers, negative too: JSON numbers up to 2^53 - 1, strings of digits beyond.',
  })
  @ApiUidParam('id', 'leaderboard')
  @ApiOkResponse({ type: LeaderboardRecordView })
  @ApiErrors(
    [400, "VALIDATION_FAILED: a score that is not a 64-bit integer, outside the board's bounds, or whose result would leave 64 bits."],
    [403, 'FORBIDDEN: an authoritative board (admins only), or a persona that is not yours.'],
    404,
    [
      409,
      'NOT_ACTIVE (no period takes scores now), NOT_JOINED, NO_ATTEMPTS_LEFT, LEADERBOARD_FULL, or ALREADY_ENTERED (a board whose ' +
        'entrant is USER, where another persona of the same user entered the period).',
    ],
  )
  @HttpCode(200)
  @Post(':id/records')
  submit(@UidParam() id: string, @Body() body: SubmitScoreDto, @CurrentCaller() caller: Caller): Promise<LeaderboardRecordView> {
    return this.records.submit(id, body, caller);
  }

  @ApiOperation({
    summary: 'Join the period open now',
    description: 'Needed before scoring on a board with joinRequired; idempotent (a member gets its record back).',
  })
  @ApiUidParam('id', 'leaderboard')
  @ApiBody({ type: JoinLeaderboardDto, required: false })
  @ApiOkResponse({ type: LeaderboardRecordView })
  @ApiErrors(400, [403, 'FORBIDDEN: a persona that is not yours.'], 404, [
    409,
    'LEADERBOARD_FULL, NOT_ACTIVE, or ALREADY_ENTERED (entrant USER: another persona of the same user entered the period).',
  ])
  @HttpCode(200)
  @Post(':id/join')
  join(@UidParam() id: string, @Body() body: JoinLeaderboardDto, @CurrentCaller() caller: Caller): Promise<LeaderboardRecordView> {
    return this.records.join(id, body, caller);
  }

  @ApiOperation({
    summary: 'Read records in rank order, or a friends list',
    description:
      "A page of the ranked records, best first; `X-Next-Cursor` leads to the next, at the first page's moment (no record skipped or repeated " +
      'while scores change). A cursor is signed and lasts nine tenths of LEADERBOARD_LOG_RETENTION from its first page: past that ' +
      '400 CURSOR_EXPIRED, and one the service did not make 400 INVALID_CURSOR (start from the first page). With `personaUids`, ' +
      'the records of those personas instead.',
  })
  @ApiUidParam('id', 'leaderboard')
  @ApiOkResponse({ type: [LeaderboardRecordView], headers: NEXT_CURSOR })
  @ApiErrors([400, 'VALIDATION_FAILED, INVALID_CURSOR (a cursor this service did not make) or CURSOR_EXPIRED.'], 404)
  @Get(':id/records')
  async page(
    @UidParam() id: string,
    @Query() { personaUids, period, cursor, limit }: RecordsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LeaderboardRecordView[]> {
    if (personaUids) return this.records.ofPersonas(id, personaUids, period);
    const page = await this.records.page(id, period, limit, cursor);
    if (page.nextCursor) void reply.header('X-Next-Cursor', page.nextCursor);
    return page.records;
  }

  @ApiOperation({
    summary: "Read your personas' records",
    description: 'In rank order; personas without a record in the period are left out.',
  })
  @ApiUidParam('id', 'leaderboard')
  @ApiOkResponse({ type: [LeaderboardRecordView] })
  @ApiErrors(400, 404)
  @Get(':id/records/me')
  mine(@UidParam() id: string, @Query() { period }: PeriodQuery, @CurrentCaller() caller: Caller): Promise<LeaderboardRecordView[]> {
    return this.records.mine(id, caller, period);
  }

  @ApiOperation({
    summary: 'Read the records around a persona',
    description: "Up to `limit` records in rank order, the persona's among them (centered where it can be).",
  })
  @ApiUidParam('id', 'leaderboard')
  @ApiParam({ name: 'personaUid', format: 'uuid', type: 'string' })
  @ApiOkResponse({ type: [LeaderboardRecordView] })
  @ApiErrors(400, [404, 'NOT_FOUND: no such leaderboard, or the persona has no ranked record in the period.'])
  @Get(':id/records/around/:personaUid')
  around(
    @UidParam() id: string,
    @UidParam('personaUid') personaUid: string,
    @Query() { period, limit }: AroundQuery,
  ): Promise<LeaderboardRecordView[]> {
    return this.records.around(id, personaUid.toLowerCase(), period, limit);
  }

  @ApiOperation({
    summary: "Delete a persona's record in a period (admins)",
    description: "It leaves the ranks at once; the player's audit records who deleted what.",
  })
  @ApiUidParam('id', 'leaderboard')
  @ApiParam({ name: 'personaUid', format: 'uuid', type: 'string' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 403, 404)
  @AdminOnly()
  @HttpCode(204)
  @Delete(':id/records/:personaUid')
  async removeRecord(
    @UidParam() id: string,
    @UidParam('personaUid') personaUid: string,
    @Query() { period }: PeriodQuery,
    @CurrentCaller() admin: Caller,
    @Client() client: ClientInfo,
  ): Promise<void> {
    await this.records.removeRecord(id, personaUid.toLowerCase(), period, admin, client);
  }
}

/** A persona's leaderboard records across every board, for moderation. */
@ApiTags('leaderboards')
@ApiSecurity('jwt')
@ApiErrors(401)
@Controller('personas/:personaUid/leaderboard-records')
export class PersonaLeaderboardRecordsController {
  constructor(private readonly records: LeaderboardRecordsService) {}

  @ApiOperation({
    summary: "Read a persona's records across boards (its owner, admins)",
    description:
      'Its record in the current period of every board it has one there (what `period=current` reads: a board that has ended shows its last period, CLOSED), ' +
      `boards by name, with ranks. Pages of up to ${LIMITS.leaderboardPage} boards with skip; a page leaves out the boards whose current period ` +
      'has no record of the persona, so it may hold fewer than `limit`: `X-Next-Skip` then says where the next begins.',
  })
  @ApiParam({ name: 'personaUid', format: 'uuid', type: 'string' })
  @ApiOkResponse({ type: [PersonaLeaderboardRecordView], headers: NEXT_SKIP_HEADER })
  @ApiErrors(400, [403, 'FORBIDDEN: a persona that is not yours.'], 404)
  @Get()
  acrossBoards(
    @UidParam('personaUid') personaUid: string,
    @Query() { skip, limit }: SkipPageQuery,
    @CurrentCaller() caller: Caller,
  ): Promise<PersonaLeaderboardRecordView[]> {
    return this.records.acrossBoards(personaUid.toLowerCase(), caller, skip, limit);
  }

  @ApiOperation({
    summary: 'Delete every leaderboard record of a persona (admins)',
    description: "All boards, all periods; the player's audit records it.",
  })
  @ApiParam({ name: 'personaUid', format: 'uuid', type: 'string' })
  @ApiNoContentResponse({ description: 'Deleted (also when there was none).' })
  @ApiErrors(400, 403, 404)
  @AdminOnly()
  @HttpCode(204)
  @Delete()
  async removeAll(@UidParam('personaUid') personaUid: string, @CurrentCaller() admin: Caller, @Client() client: ClientInfo): Promise<void> {
    await this.records.removeAllOf(personaUid.toLowerCase(), admin, client);
  }
}
