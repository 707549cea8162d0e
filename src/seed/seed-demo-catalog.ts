import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { AchievementDefinition } from '../achievements/achievement.entity.js';
import { mediaFileContent, stampMediaFiles } from '../assets/media-files.js';
import { MediaAsset } from '../assets/media-asset.entity.js';
import { TextAsset } from '../assets/text-asset.entity.js';
import { Item } from '../items/item.entity.js';
import { DEMO_ACHIEVEMENTS, DEMO_ITEMS, DEMO_MEDIA_ASSETS, DEMO_TEXT_ASSETS } from './demo-catalog.js';

export interface SeedCount {
  /** Records of the demo catalog of this kind. */
  total: number;
  /** How many of them this run added (the others were there already). */
  added: number;
}

export interface SeedReport {
  mediaAssets: SeedCount;
  textAssets: SeedCount;
  items: SeedCount;
  achievements: SeedCount;
}

/**
 * Loads the demo catalog into the database, in one transaction. Idempotent: records are keyed by
 * their fixed uids and inserted with ON CONFLICT DO NOTHING, so a second run adds nothing and a demo
 * record someone has since edited is left as it is. The records have no owner (no admin created them)
 * and start at version 0, as if an admin had created them through the API.
 */
export async function seedDemoCatalog(dataSource: DataSource): Promise<SeedReport> {
  return dataSource.transaction(async (manager) => {
    // One millisecond apart, in catalog order: lists sort by dateCreated, and rows written in one
    // transaction would otherwise share now() and come back in uid order.
    const start = Date.now();
    const insert = async <T extends ObjectLiteral>(target: EntityTarget<T>, rows: object[]): Promise<SeedCount> => {
      const dated = rows.map((row, index) => {
        const date = new Date(start + index);
        return { ...row, dateCreated: date, dateModified: date };
      });
      const result = await manager
        .createQueryBuilder()
        .insert()
        .into(target)
        .values(dated as never)
        .orIgnore()
        .returning('uid')
        .execute();
      return { total: rows.length, added: (result.raw as unknown[]).length };
    };

    const now = new Date(start).toISOString();
    const mediaAssets = await insert(
      MediaAsset,
      DEMO_MEDIA_ASSETS.map(({ uid, name, description, files }) => ({
        uid,
        name,
        description,
        files: stampMediaFiles(
          Object.entries(files).map(([key, file]) => [key, mediaFileContent(file)]),
          undefined,
          now,
        ),
        version: 0,
        ownerUid: null,
      })),
    );
    const textAssets = await insert(
      TextAsset,
      DEMO_TEXT_ASSETS.map((asset) => ({ ...asset, version: 0, ownerUid: null })),
    );
    // Parents come before their children in DEMO_ITEMS; the foreign key is checked per statement.
    const items = await insert(
      Item,
      DEMO_ITEMS.map((item) => ({ ...item, version: 0, ownerUid: null })),
    );
    const achievements = await insert(
      AchievementDefinition,
      DEMO_ACHIEVEMENTS.map((achievement) => ({ ...achievement, version: 0, ownerUid: null })),
    );
    return { mediaAssets, textAssets, items, achievements };
  });
}
