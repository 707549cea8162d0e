import type { SessionBrief, SessionChange } from './dto/session-events.dto.js';
import type { Session } from './session.entity.js';

/** The fields a client sees change; `passwordHash` shows as `password`, never its value. */
const WATCHED = ['status', 'visibility', 'numTeams', 'teamSize', 'teams', 'users', 'invited', 'backfill', 'hostUid', 'serverUid'] as const;

export const briefOf = ({ uid, version, status, visibility, hostUid }: Session): SessionBrief => ({
  uid,
  version,
  status,
  visibility,
  hostUid,
});

/** What `session.updated` says of a write: the session in brief, the fields it changed, who joined and who left. */
export function describeChange(before: Session, after: Session): SessionChange {
  const changed: string[] = WATCHED.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
  if (before.passwordHash !== after.passwordHash) changed.push('password');
  const was = new Set(before.users);
  const is = new Set(after.users);
  return {
    ...briefOf(after),
    changed,
    joined: after.users.filter((user) => !was.has(user)),
    left: before.users.filter((user) => !is.has(user)),
  };
}

/** The users a write invited who were not invited before it. */
export const newlyInvited = (before: Pick<Session, 'invited'> | undefined, after: Session): string[] =>
  after.invited.filter((user) => !before?.invited.includes(user));
