import { ApiProperty } from '@nestjs/swagger';
import { SESSION_STATUSES, SESSION_VISIBILITIES, type SessionStatus, type SessionVisibility } from '../session.entity.js';

// What the session events carry (docs/REALTIME.md): the session in brief, never its whole body, so that
// an event stays small whatever the session holds and a write cannot flood its people's inboxes. A
// client that wants the roster reads GET /sessions/{id} (its version says whether it is new).

/** Who, what and where a session is now. */
export class SessionBrief {
  @ApiProperty({ format: 'uuid' })
  uid: string;

  @ApiProperty({ type: 'integer', example: 3 })
  version: number;

  @ApiProperty({ enum: SESSION_STATUSES, enumName: 'SessionStatus' })
  status: SessionStatus;

  @ApiProperty({ enum: SESSION_VISIBILITIES, enumName: 'SessionVisibility' })
  visibility: SessionVisibility;

  @ApiProperty({ format: 'uuid' })
  hostUid: string;
}

/** `session.updated`: the session after a write, what the write changed, and who came and went. */
export class SessionChange extends SessionBrief {
  @ApiProperty({
    type: [String],
    description: 'The fields this write changed (`password` when the password was set, changed or removed).',
    example: ['users', 'teams'],
  })
  changed: string[];

  @ApiProperty({ type: [String], format: 'uuid', description: 'Users seated by this write (joined, or placed by the matchmaker).' })
  joined: string[];

  @ApiProperty({ type: [String], format: 'uuid', description: 'Users who left, or were removed, by this write.' })
  left: string[];
}

/** `session.deleted`: the session that is gone. */
export class SessionRemoval {
  @ApiProperty({ format: 'uuid' })
  uid: string;

  @ApiProperty({ type: 'integer', description: 'Its last version.', example: 7 })
  version: number;
}
