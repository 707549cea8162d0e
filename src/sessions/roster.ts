import { badRequest } from '../common/errors.js';
import type { SessionStatus, Team } from './session.entity.js';

/**
 * Who sits where in a session. Every member sits in exactly one team, no team holds more than
 * teamSize, and there are exactly numTeams teams. Pure functions: the rules are unit-tested without a
 * database, and the service applies them inside the transaction that holds the session's row lock.
 */
export interface Roster {
  users: string[];
  teams: Team[];
}

/** Empty teams numbered 0..numTeams-1. */
export function emptyTeams(numTeams: number): Team[] {
  return Array.from({ length: numTeams }, (_, id) => ({ id, members: [] }));
}

/**
 * Builds a consistent roster from what a client sent: `teams` as given (checked), `users` as the
 * members plus anyone listed in `users` only, who is seated on the first team with room.
 */
export function buildRoster(numTeams: number, teamSize: number, users: string[], teams: Team[] | undefined): Roster {
  const seated = teams ? checkedTeams(numTeams, teamSize, teams) : emptyTeams(numTeams);
  const members = new Set(seated.flatMap((team) => team.members));
  const everyone = [...new Set([...users, ...seated.flatMap((team) => team.members)])];
  for (const user of everyone) {
    if (members.has(user)) continue;
    const team = seated.find((candidate) => candidate.members.length < teamSize);
    if (!team) {
      throw badRequest(`${everyone.length} users do not fit in ${numTeams} teams of ${teamSize}`, [
        { field: 'users', message: `more users than seats (${numTeams * teamSize})` },
      ]);
    }
    team.members.push(user);
    members.add(user);
  }
  return { users: everyone, teams: seated };
}

/** Adds a user to the first team with room; undefined when the session is full. */
export function seat(roster: Roster, user: string, teamSize: number): Roster | undefined {
  const index = roster.teams.findIndex((team) => team.members.length < teamSize);
  if (index < 0) return undefined;
  return {
    users: [...roster.users, user],
    teams: roster.teams.map((team, position) => (position === index ? { ...team, members: [...team.members, user] } : team)),
  };
}

/** Removes a user from the session and from their team. */
export function unseat(roster: Roster, user: string): Roster {
  return {
    users: roster.users.filter((member) => member !== user),
    teams: roster.teams.map((team) => ({ ...team, members: team.members.filter((member) => member !== user) })),
  };
}

/** Seats a party on the team with id `teamId` (the matchmaker's backfill chose it and checked the room). */
export function seatParty(roster: Roster, users: string[], teamId: number): Roster {
  return {
    users: [...roster.users, ...users],
    teams: roster.teams.map((team) => (team.id === teamId ? { ...team, members: [...team.members, ...users] } : team)),
  };
}

/** What a write names for a session, split by consent: who may sit in it, and who is invited instead. */
export interface Admission {
  users: string[];
  teams: Team[] | undefined;
  /** Named but not seated: they go in `invited`, and decide for themselves by joining. */
  invite: string[];
}

/**
 * Nobody is listed in a session without consent: of the users and team members a write names, those
 * `maySit` allows (members already seated, the caller themselves; anyone for an admin) stay, and the
 * others are invited instead of seated.
 */
export function admit(users: string[], teams: Team[] | undefined, maySit: (user: string) => boolean): Admission {
  const invite = new Set<string>();
  const keep = (user: string) => {
    if (maySit(user)) return true;
    invite.add(user);
    return false;
  };
  return {
    users: users.filter(keep),
    teams: teams?.map((team) => ({ id: team.id, members: team.members.filter(keep) })),
    invite: [...invite],
  };
}

/** What a session becomes when members leave it: the roster, its host, its status. */
export interface Departure extends Roster {
  hostUid: string;
  status: SessionStatus;
}

/**
 * Members leave (they left, or fell silent): each leaves their team; a departing host hands over to
 * the first member who stays; a session still WAITING_FOR_PLAYERS that nobody is left in ends.
 */
export function depart(session: Roster & { hostUid: string; status: SessionStatus }, leaving: string[]): Departure {
  const gone = new Set(leaving);
  const stays = (user: string) => !gone.has(user);
  const roster = {
    users: session.users.filter(stays),
    teams: session.teams.map((team) => ({ ...team, members: team.members.filter(stays) })),
  };
  const hostLeft = gone.has(session.hostUid) && roster.users.length > 0;
  const emptied = roster.users.length === 0 && session.users.length > 0 && session.status === 'WAITING_FOR_PLAYERS';
  return { ...roster, hostUid: hostLeft ? roster.users[0] : session.hostUid, status: emptied ? 'ENDED' : session.status };
}

/**
 * The teams as a client sent them are well formed: numTeams of them, distinct ids, none over
 * teamSize, nobody in two. Checked before consent takes anyone out of them, so that a malformed
 * request is refused as sent.
 */
export function checkTeams(numTeams: number, teamSize: number, teams: Team[]): void {
  checkedTeams(numTeams, teamSize, teams);
}

function checkedTeams(numTeams: number, teamSize: number, teams: Team[]): Team[] {
  const fail = (message: string) => {
    throw badRequest(`teams: ${message}`, [{ field: 'teams', message }]);
  };
  if (teams.length !== numTeams) fail(`there must be numTeams (${numTeams}) teams, not ${teams.length}`);
  if (new Set(teams.map((team) => team.id)).size !== teams.length) fail('team ids must be distinct');
  const seen = new Set<string>();
  for (const team of teams) {
    if (team.members.length > teamSize) fail(`team ${team.id} has more than teamSize (${teamSize}) members`);
    for (const member of team.members) {
      if (seen.has(member)) fail(`user ${member} sits in two teams`);
      seen.add(member);
    }
  }
  return teams.map((team) => ({ id: team.id, members: [...team.members] }));
}
