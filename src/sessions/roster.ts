import { badRequest } from '../common/errors.js';
import type { Team } from './session.entity.js';

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
