import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * The document's tags, each with what it groups (generators make a client class or a section of each),
 * and the descriptions of the operations that neither their @ApiOperation() nor their method's doc
 * comment (which the Swagger plugin turns into the description) gives: mostly the routes the shared
 * record controllers declare for every resource. A test and the OpenAPI linters ask for a description
 * on every operation.
 */
export const TAGS = [
  {
    name: 'auth',
    description: "Sign-in through the identity providers or as a guest with a device id, token refresh, and the caller's player sessions.",
  },
  {
    name: 'account',
    description: "The caller's identities (devices, idp1, idp2): link one to keep the account on a new device, unlink one.",
  },
  { name: 'users', description: 'Accounts, their identities, bans and the sign-in audit (admins).' },
  { name: 'admin', description: "The admin audit of every admin write, and the service's live figures (admins; docs/CONSOLE.md)." },
  { name: 'personas', description: "A user's in-game characters: they hold inventories, trade and progress in skills." },
  { name: 'items', description: 'The catalog of items (admins write it; every player reads it).' },
  { name: 'sessions', description: 'Game sessions: host, join, leave, teams, presence.' },
  { name: 'tickets', description: 'Matchmaking tickets: the matchmaker groups searching tickets into sessions.' },
  { name: 'inventories', description: 'What personas hold, and the transactions that change it (trades, awards, removals).' },
  { name: 'transactions', description: 'Pending trades: accept, decline or cancel, and reading transactions.' },
  { name: 'skills', description: "A persona's progress in skills, grouped by archetype (public reads)." },
  { name: 'media assets', description: 'Catalog media: files by variant (admins write them).' },
  { name: 'media files', description: 'Uploaded files at content-addressed URLs: cacheable for a year, public unless MEDIA_PUBLIC=false.' },
  { name: 'text assets', description: 'Catalog text by language, resolved with fallbacks (admins write them).' },
  { name: 'achievements', description: "Achievement definitions and the caller's unlocks." },
  { name: 'storage', description: "Cloud save: players' JSON objects by collection and key, with versions, permissions and quotas." },
  { name: 'leaderboards', description: 'Boards, scores with their operators, ranked reads, periods and tournaments with prizes.' },
  { name: 'realtime', description: "The realtime socket's tickets and the event inbox over REST (docs/REALTIME.md)." },
  { name: 'operations', description: 'Liveness, readiness and metrics, for load balancers and monitoring.' },
];

const LIST =
  'Records the caller may see, by the list rules: `limit` and `skip`, `sort`, and a filter per field (docs/CONTRACT.md section 2).';
const COUNT = 'How many records the caller may see match the filters (the list rules; `limit` and `skip` do not cap it).';
const FIND =
  'One record by its uid, with `ETag: "<version>"` to send back as If-Match. A record the caller may not see is a 404, as an unknown one.';
const CREATE = 'Creates the record, version 0, and answers it with `ETag` and `Location`.';
const DELETE = 'Deletes the record for good.';
const TRUNCATE = 'Deletes every record of the kind, for test and staging environments.';

const DESCRIPTIONS: Record<string, string> = {
  'GET /metrics': 'Prometheus metrics in the text exposition format: request rates and latencies, realtime sockets and events, pools.',
  'GET /users/{id}': 'A user with their provider, identities, roles, ban and active player sessions.',
  'POST /personas': `${CREATE} The persona belongs to the caller.`,
  'GET /personas/{id}': FIND,
  'POST /items': CREATE,
  'GET /items': LIST,
  'GET /items/count': COUNT,
  'GET /items/{id}': FIND,
  'DELETE /items/{id}': DELETE,
  'DELETE /sessions': TRUNCATE,
  'DELETE /sessions/{id}': `${DELETE} Its members hear of it (session.deleted).`,
  'GET /sessions/{id}': FIND,
  'DELETE /tickets': TRUNCATE,
  'DELETE /tickets/{id}': DELETE,
  'GET /tickets/{id}': FIND,
  'GET /inventories/{id}': FIND,
  'POST /transactions/{id}/decline': "Persona two's owner declines a PENDING trade: it becomes DECLINED and nothing moves.",
  'POST /transactions/{id}/cancel': "Persona one's owner withdraws a PENDING trade: it becomes CANCELED and nothing moves.",
  'GET /transactions/{id}': FIND,
  'GET /personas/{personaUid}/archetypes/{archetypeUid}/skills': `${LIST} Only the archetype's skills.`,
  'DELETE /personas/{personaUid}/archetypes/{archetypeUid}/skills': "Removes the persona's progress in every skill of the archetype.",
  'GET /personas/{personaUid}/archetypes/{archetypeUid}/skills/count': `${COUNT} Only the archetype's skills.`,
  'DELETE /personas/{personaUid}/archetypes/{archetypeUid}/skills/{skillUid}':
    "Removes the persona's progress in the skill: it starts again from nothing.",
  'GET /personas/{personaUid}/skills': LIST,
  'GET /personas/{personaUid}/skills/count': COUNT,
  'DELETE /assets/media/{id}': DELETE,
  'GET /assets/media/{id}': FIND,
  'POST /assets/text': CREATE,
  'DELETE /assets/text/{id}': DELETE,
  'GET /assets/text/{id}': `${FIND} GET /assets/text/{id}/resolve picks the text of one language.`,
  'DELETE /achievements': TRUNCATE,
  'GET /achievements': LIST,
  'GET /achievements/unlocked': `The caller's unlocks (AchievementUnlock records), by the list rules.`,
  'DELETE /achievements/{id}': `${DELETE} Its unlocks go with it.`,
  'GET /achievements/{id}': FIND,
  'POST /leaderboards': `${CREATE} The settings that give stored scores their meaning cannot change afterwards.`,
  'GET /leaderboards': LIST,
  'GET /leaderboards/count': COUNT,
  'GET /leaderboards/{id}': FIND,
  'DELETE /leaderboards/{id}': `${DELETE} Its periods, records and unpaid prizes go with it.`,
};

/** Fills the descriptions the routes do not give themselves. */
export function describeOperations(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, { description?: string }>)) {
      if (typeof operation !== 'object' || operation === null || operation.description) continue;
      const description = DESCRIPTIONS[`${method.toUpperCase()} ${path}`];
      if (description) operation.description = description;
    }
  }
}
