import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/policy.js';
import { ApiErrors } from '../common/route.decorators.js';
import { AdminStatsDto } from './dto/admin-stats.dto.js';
import { StatsService } from './stats.service.js';

@ApiTags('admin')
@ApiSecurity('jwt')
@ApiErrors(401, [403, 'FORBIDDEN: admins only.'])
@AdminOnly()
@Controller('admin/stats')
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @ApiOperation({
    summary: 'Live figures of the service (admins)',
    description:
      'Sockets open and the last minute of requests and errors on the instance that answers; sign-ins of the last minute on every instance; ' +
      'what cloud save and media hold in all (read at most a minute ago). ' +
      'The matchmaking queue is GET /tickets/stats.',
  })
  @ApiOkResponse({ type: AdminStatsDto })
  @Get()
  current(): Promise<AdminStatsDto> {
    return this.stats.current();
  }
}
