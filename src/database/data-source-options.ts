import type { DataSourceOptions } from 'typeorm';
import { AchievementUnlock } from '../achievements/achievement-unlock.entity.js';
import { AchievementDefinition } from '../achievements/achievement.entity.js';
import { MediaAsset } from '../assets/media-asset.entity.js';
import { TextAsset } from '../assets/text-asset.entity.js';
import { AdminAuditEntry } from '../audit/admin-audit.entity.js';
import { User } from '../auth/user.entity.js';
import { UserIdentity } from '../auth/user-identity.entity.js';
import { Item } from '../items/item.entity.js';
import { poolRecordingDriver } from './pg-driver.js';
import { Persona } from '../personas/persona.entity.js';
import { Session } from '../sessions/session.entity.js';
import { Ticket } from '../tickets/ticket.entity.js';
import { InventoryItem } from '../economy/inventory-item.entity.js';
import { LedgerEntry } from '../economy/ledger-entry.entity.js';
import { InventoryTransaction } from '../economy/transaction.entity.js';
import { SkillProgress } from '../skills/skill-progress.entity.js';
import { StorageObject, StorageUsage } from '../storage/storage-object.entity.js';
import { Leaderboard } from '../leaderboards/leaderboard.entity.js';
import { LeaderboardPeriod } from '../leaderboards/leaderboard-period.entity.js';
import { LeaderboardRecord } from '../leaderboards/leaderboard-record.entity.js';
import { MIGRATIONS } from './migrations/index.js';
import { MediaBlob, MediaBlobReference, MediaUpload } from '../media/media-blob.entity.js';

// Listed, not globbed, like the migrations: the service and the CLI (ormconfig.ts) read this list.
export const ENTITIES = [
  User,
  UserIdentity,
  Persona,
  Item,
  Session,
  Ticket,
  MediaAsset,
  TextAsset,
  AchievementDefinition,
  AchievementUnlock,
  InventoryItem,
  InventoryTransaction,
  LedgerEntry,
  SkillProgress,
  StorageObject,
  StorageUsage,
  Leaderboard,
  LeaderboardPeriod,
  LeaderboardRecord,
  MediaBlob,
  MediaBlobReference,
  MediaUpload,
  AdminAuditEntry,
];

/** Connection settings shared by the service, the TypeORM CLI and the test set-up. */
export function dataSourceOptions(url: string): Extract<DataSourceOptions, { type: 'postgres' }> {
  return {
    type: 'postgres',
    driver: poolRecordingDriver(),
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // Schema changes only through migrations, reviewed and versioned with the code.
    synchronize: false,
    migrationsRun: false,
    // gen_random_uuid() is built into PostgreSQL 13+; no uuid-ossp extension to install.
    uuidExtension: 'pgcrypto',
    applicationName: 'game-backend',
    extra: {
      max: 10,
      // Fail fast when the database is away, so that clients get a 503 instead of a hung request.
      connectionTimeoutMillis: 5000,
      statement_timeout: 15000,
      idle_in_transaction_session_timeout: 30000,
    },
  };
}
