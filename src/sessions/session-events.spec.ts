import { describeChange, newlyInvited } from './session-events.js';
import type { Session } from './session.entity.js';

const session = (fields: Partial<Session>): Session =>
  ({
    uid: 's',
    version: 1,
    status: 'WAITING_FOR_PLAYERS',
    visibility: 'PUBLIC',
    numTeams: 2,
    teamSize: 2,
    teams: [
      { id: 0, members: ['host'] },
      { id: 1, members: [] },
    ],
    users: ['host'],
    invited: [],
    backfill: false,
    passwordHash: null,
    hostUid: 'host',
    serverUid: null,
    ...fields,
  }) as Session;

describe('session events', () => {
  it('say who joined and who left, and which fields a write changed, never the roster itself', () => {
    const before = session({
      users: ['host', 'a'],
      teams: [
        { id: 0, members: ['host', 'a'] },
        { id: 1, members: [] },
      ],
    });
    const after = session({
      version: 2,
      users: ['host', 'b'],
      teams: [
        { id: 0, members: ['host'] },
        { id: 1, members: ['b'] },
      ],
      status: 'IN_PROGRESS',
    });
    expect(describeChange(before, after)).toEqual({
      uid: 's',
      version: 2,
      status: 'IN_PROGRESS',
      visibility: 'PUBLIC',
      hostUid: 'host',
      changed: ['status', 'teams', 'users'],
      joined: ['b'],
      left: ['a'],
    });
  });

  it('name a password change without its value, and nothing for a write that changed nothing', () => {
    expect(describeChange(session({}), session({ version: 2, passwordHash: 'scrypt$a$b' })).changed).toEqual(['password']);
    expect(JSON.stringify(describeChange(session({}), session({ version: 2, passwordHash: 'scrypt$a$b' })))).not.toContain('scrypt');
    expect(describeChange(session({}), session({ version: 2 }))).toMatchObject({ changed: [], joined: [], left: [] });
  });

  it('invite only those not invited before', () => {
    expect(newlyInvited(session({ invited: ['a', 'b'] }), session({ invited: ['b', 'c', 'a', 'd'] }))).toEqual(['c', 'd']);
    expect(newlyInvited(undefined, session({ invited: ['a'] }))).toEqual(['a']);
  });
});
