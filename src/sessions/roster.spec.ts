import { ApiException } from '../common/errors.js';
import { admit, buildRoster, checkTeams, depart, seat, seatParty, unseat } from './roster.js';

const refusal = (build: () => unknown): string => {
  try {
    build();
  } catch (error) {
    if (error instanceof ApiException && error.getStatus() === 400) return error.message;
    throw error;
  }
  throw new Error('expected a 400');
};

describe('session roster', () => {
  it('seats users on the first team with room when no teams are given', () => {
    expect(buildRoster(2, 2, ['a', 'b', 'c'], undefined)).toEqual({
      users: ['a', 'b', 'c'],
      teams: [
        { id: 0, members: ['a', 'b'] },
        { id: 1, members: ['c'] },
      ],
    });
  });

  it('keeps the teams given, adds their members to users and seats the rest', () => {
    const roster = buildRoster(
      2,
      2,
      ['a'],
      [
        { id: 7, members: ['b'] },
        { id: 9, members: [] },
      ],
    );
    expect(roster).toEqual({
      users: ['a', 'b'],
      teams: [
        { id: 7, members: ['b', 'a'] },
        { id: 9, members: [] },
      ],
    });
  });

  it('refuses more users than seats, the wrong number of teams, duplicate ids and double seats', () => {
    expect(refusal(() => buildRoster(1, 2, ['a', 'b', 'c'], undefined))).toMatch(/do not fit/);
    expect(refusal(() => buildRoster(2, 2, [], [{ id: 0, members: [] }]))).toMatch(/numTeams \(2\)/);
    expect(
      refusal(() =>
        buildRoster(
          2,
          2,
          [],
          [
            { id: 1, members: [] },
            { id: 1, members: [] },
          ],
        ),
      ),
    ).toMatch(/distinct/);
    expect(
      refusal(() =>
        buildRoster(
          2,
          2,
          [],
          [
            { id: 0, members: ['a'] },
            { id: 1, members: ['a'] },
          ],
        ),
      ),
    ).toMatch(/two teams/);
    expect(refusal(() => buildRoster(1, 1, [], [{ id: 0, members: ['a', 'b'] }]))).toMatch(/more than teamSize/);
  });

  it('seats a joiner on the first team with room, and reports a full session', () => {
    const roster = buildRoster(2, 1, ['a'], undefined);
    const joined = seat(roster, 'b', 1);
    expect(joined?.teams).toEqual([
      { id: 0, members: ['a'] },
      { id: 1, members: ['b'] },
    ]);
    expect(seat(joined!, 'c', 1)).toBeUndefined();
  });

  it('removes a leaver from users and their team', () => {
    const roster = buildRoster(2, 1, ['a', 'b'], undefined);
    expect(unseat(roster, 'a')).toEqual({
      users: ['b'],
      teams: [
        { id: 0, members: [] },
        { id: 1, members: ['b'] },
      ],
    });
    expect(unseat(roster, 'nobody')).toEqual(roster);
  });

  it('seats a backfilled party together on the team chosen for it', () => {
    const roster = {
      users: ['a'],
      teams: [
        { id: 0, members: ['a'] },
        { id: 7, members: [] },
      ],
    };
    expect(seatParty(roster, ['b', 'c'], 7)).toEqual({
      users: ['a', 'b', 'c'],
      teams: [
        { id: 0, members: ['a'] },
        { id: 7, members: ['b', 'c'] },
      ],
    });
  });

  it('lets members depart: the host hands over to the first who stays, an emptied lobby ends', () => {
    const lobby = {
      users: ['host', 'b', 'c'],
      teams: [
        { id: 0, members: ['host', 'b'] },
        { id: 1, members: ['c'] },
      ],
      hostUid: 'host',
    };
    expect(depart({ ...lobby, status: 'WAITING_FOR_PLAYERS' }, ['host', 'c'])).toEqual({
      users: ['b'],
      teams: [
        { id: 0, members: ['b'] },
        { id: 1, members: [] },
      ],
      hostUid: 'b',
      status: 'WAITING_FOR_PLAYERS',
    });
    expect(depart({ ...lobby, status: 'WAITING_FOR_PLAYERS' }, ['host', 'b', 'c'])).toMatchObject({
      users: [],
      hostUid: 'host',
      status: 'ENDED',
    });
    // A game in progress is not ended by its players falling silent; a host who stays keeps the session.
    expect(depart({ ...lobby, status: 'IN_PROGRESS' }, ['host', 'b', 'c'])).toMatchObject({ users: [], status: 'IN_PROGRESS' });
    expect(depart({ ...lobby, status: 'IDLE' }, ['c'])).toMatchObject({ users: ['host', 'b'], hostUid: 'host', status: 'IDLE' });
  });

  it('admits only those who may sit, and invites the others, once each, in the order named', () => {
    const members = new Set(['host', 'b']);
    const admitted = admit(
      ['host', 'x', 'b', 'y'],
      [
        { id: 0, members: ['host', 'y'] },
        { id: 1, members: ['z', 'b'] },
      ],
      (user) => members.has(user),
    );
    expect(admitted).toEqual({
      users: ['host', 'b'],
      teams: [
        { id: 0, members: ['host'] },
        { id: 1, members: ['b'] },
      ],
      invite: ['x', 'y', 'z'],
    });
    expect(admit(['a'], undefined, () => true)).toEqual({ users: ['a'], teams: undefined, invite: [] });
  });

  it('checks teams as they were sent, before consent takes anyone out of them', () => {
    expect(
      refusal(() =>
        checkTeams(2, 1, [
          { id: 0, members: ['a', 'b'] },
          { id: 1, members: [] },
        ]),
      ),
    ).toContain('more than teamSize');
    expect(() => checkTeams(1, 2, [{ id: 4, members: ['a'] }])).not.toThrow();
  });

  it('lets ten thousand members depart at once without visiting the roster once per member', () => {
    const users = Array.from({ length: 10_000 }, (_, index) => `u${index}`);
    const session = { users, teams: [{ id: 0, members: users }], hostUid: 'u0', status: 'IN_PROGRESS' as const };
    const departed = depart(session, users.slice(1));
    expect(departed).toEqual({ users: ['u0'], teams: [{ id: 0, members: ['u0'] }], hostUid: 'u0', status: 'IN_PROGRESS' });
  });
});
