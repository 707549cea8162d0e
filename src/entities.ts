import { AchievementUnlock } from './achievements/achievement-unlock.entity.js';
import { AchievementDefinition } from './achievements/achievement.entity.js';
import { MediaAsset } from './assets/media-asset.entity.js';
import { TextAsset } from './assets/text-asset.entity.js';
import { AdminAuditEntry } from './audit/admin-audit.entity.js';
import { User } from './auth/users/user.entity.js';
import { UserIdentity } from './auth/users/user-identity.entity.js';
import { Item } from './items/item.entity.js';
import { Persona } from './personas/persona.entity.js';
import { Session } from './sessions/session.entity.js';
import { Ticket } from './tickets/ticket.entity.js';
import { InventoryItem } from './economy/inventory-item.entity.js';
import { LedgerEntry } from './economy/ledger-entry.entity.js';
import { InventoryTransaction } from './economy/transaction.entity.js';
import { SkillProgress } from './skills/skill-progress.entity.js';
import { StorageObject, StorageUsage } from './storage/storage-object.entity.js';
import { Leaderboard } from './leaderboards/leaderboard.entity.js';
import { LeaderboardPeriod } from './leaderboards/leaderboard-period.entity.js';
import { LeaderboardRecord } from './leaderboards/leaderboard-record.entity.js';
import { MediaBlob, MediaBlobReference, MediaUpload } from './media/media-blob.entity.js';
import type { EntityList } from './database/data-source-options.js';

/**
 * Every entity of the service: the composition root's list (like app.module.ts) that the service, the
 * TypeORM CLI (ormconfig.ts), the seed script and the tests give dataSourceOptions(). Listed, not
 * globbed, like the migrations.
 */
export const ENTITIES: EntityList = [
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
