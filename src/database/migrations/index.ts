import { Foundation1763800000000 } from './1763800000000-Foundation.js';
import { SessionsAndTickets1763800000001 } from './1763800000001-SessionsAndTickets.js';
import { AssetsAndAchievements1763800000002 } from './1763800000002-AssetsAndAchievements.js';
import { Economy1763800000003 } from './1763800000003-Economy.js';
import { Realtime1764000000000 } from './1764000000000-Realtime.js';
import { PlayerSessions1764100000000 } from './1764100000000-PlayerSessions.js';
import { Matchmaking1764200000000 } from './1764200000000-Matchmaking.js';
import { BoundedWrites1764300000000 } from './1764300000000-BoundedWrites.js';
import { Leaderboards1764400000000 } from './1764400000000-Leaderboards.js';
import { CloudSave1764500000000 } from './1764500000000-CloudSave.js';
import { Identities1764600000000 } from './1764600000000-Identities.js';
import { MediaStorage1764700000033 } from './1764700000033-MediaStorage.js';
import { AdminConsole1764800000000 } from './1764800000000-AdminConsole.js';
import { LeaderboardReset1765300000001 } from './1765300000001-LeaderboardReset.js';
import { LeaderboardEntrants1765400000047 } from './1765400000047-LeaderboardEntrants.js';
import { GuestAccounts1765400000048 } from './1765400000048-GuestAccounts.js';

// Listed, not globbed: globs also match index.js and .d.ts files and TypeORM then reports
// "Duplicate migrations". The service, the CLI (ormconfig.ts) and the test set-up read this list.
export const MIGRATIONS = [
  Foundation1763800000000,
  SessionsAndTickets1763800000001,
  AssetsAndAchievements1763800000002,
  Economy1763800000003,
  Realtime1764000000000,
  PlayerSessions1764100000000,
  Matchmaking1764200000000,
  BoundedWrites1764300000000,
  Leaderboards1764400000000,
  CloudSave1764500000000,
  Identities1764600000000,
  MediaStorage1764700000033,
  AdminConsole1764800000000,
  LeaderboardReset1765300000001,
  LeaderboardEntrants1765400000047,
  GuestAccounts1765400000048,
];
