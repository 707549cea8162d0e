import { partyState, queueConflict } from './ticket-rules.js';

describe('parties by consent', () => {
  const party = { users: ['host', 'friend', 'cousin'], hostUid: 'host', trusted: false };

  it('waits INITIALIZING for everyone it names but the host, whatever was asked', () => {
    expect(partyState({ ...party, accepted: [], status: 'SEARCHING' })).toEqual({ status: 'INITIALIZING', accepted: ['host'] });
    expect(partyState({ ...party, accepted: ['host', 'friend'], status: 'SEARCHING' })).toEqual({
      status: 'INITIALIZING',
      accepted: ['host', 'friend'],
    });
  });

  it('searches once the last has accepted, and keeps a hold or an end asked for', () => {
    const everyone = ['host', 'friend', 'cousin'];
    expect(partyState({ ...party, accepted: everyone, status: 'SEARCHING' })).toEqual({ status: 'SEARCHING', accepted: everyone });
    expect(partyState({ ...party, accepted: everyone, status: 'INITIALIZING' }).status).toBe('INITIALIZING');
    expect(partyState({ ...party, accepted: [], status: 'INVALID' }).status).toBe('INVALID');
  });

  it('forgets the acceptance of users taken off the party, and needs that of users put on it', () => {
    expect(
      partyState({ ...party, users: ['host', 'cousin', 'stranger'], accepted: ['host', 'friend', 'cousin'], status: 'SEARCHING' }),
    ).toEqual({
      status: 'INITIALIZING',
      accepted: ['host', 'cousin'],
    });
  });

  it("takes an admin's (a game server's) party as agreed", () => {
    expect(partyState({ ...party, trusted: true, accepted: [], status: 'SEARCHING' })).toEqual({
      status: 'SEARCHING',
      accepted: ['host', 'friend', 'cousin'],
    });
  });
});

describe('queue places', () => {
  const queued = [
    { uid: 't1', users: ['ann', 'bob'] },
    { uid: 't2', users: ['bob'] },
  ];

  it('names the first user without a free place, and one of the tickets holding theirs', () => {
    expect(queueConflict(['cy', 'bob'], queued, 1)).toEqual({ userUid: 'bob', ticketUid: 't1' });
    expect(queueConflict(['ann'], queued, 1)).toEqual({ userUid: 'ann', ticketUid: 't1' });
    expect(queueConflict(['cy'], queued, 1)).toBeUndefined();
  });

  it('counts up to MATCHMAKER_TICKETS_PER_USER places', () => {
    expect(queueConflict(['ann', 'bob'], queued, 2)).toEqual({ userUid: 'bob', ticketUid: 't1' });
    expect(queueConflict(['ann'], queued, 2)).toBeUndefined();
    expect(queueConflict(['bob'], queued, 3)).toBeUndefined();
  });
});
