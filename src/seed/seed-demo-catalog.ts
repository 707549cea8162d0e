import { Readable } from 'node:stream';
import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { AchievementDefinition } from '../achievements/achievement.entity.js';
import { mediaFileContent, stampMediaFiles, storedFileUri, type StoredMediaFiles } from '../media/media-files.js';
import { MediaAsset } from '../assets/media-asset.entity.js';
import { TextAsset } from '../assets/text-asset.entity.js';
import { Item } from '../items/item.entity.js';
import { MediaBlobsRepository } from '../media/media-blobs.repository.js';
import type { MediaStore } from '../media/media-store.js';
import { DEMO_ACHIEVEMENTS, DEMO_ITEMS, DEMO_MEDIA_ASSETS, DEMO_TEXT_ASSETS, type DemoMediaAsset } from './demo-catalog.js';
import { demoIcon } from './demo-icons.js';

/** Where the seed uploads the demo icons: the service's media store, and what its URIs start with. */
export interface SeedMedia {
  store: MediaStore;
  baseUrl: string;
}

/** Pixels of the icons the seed draws: the inventory icon and its thumbnail. */
const ICON_SIZES = { default: 64, thumbnail: 32 } as const;

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
 * and start at version 0, as if an admin had created them through the API. With `media`, each artwork's
 * variants are PNG icons drawn by demo-icons.ts and uploaded to the store, so that the Swagger UI and
 * the console show real images; without it, they name files on an example CDN.
 */
export async function seedDemoCatalog(dataSource: DataSource, media?: SeedMedia): Promise<SeedReport> {
  return dataSource.transaction(async (manager) => {
    // One millisecond apart, in catalog order: lists sort by dateCreated, and rows written in one
    // transaction would otherwise share now() and come back in uid order.
    const start = Date.now();
    const insert = async <T extends ObjectLiteral>(
      target: EntityTarget<T>,
      rows: object[],
    ): Promise<SeedCount & { addedUids: string[] }> => {
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
      const added = (result.raw as Array<{ uid: string }>).map((row) => row.uid);
      return { total: rows.length, added: added.length, addedUids: added };
    };

    const now = new Date(start).toISOString();
    const blobs = new MediaBlobsRepository(dataSource);
    const files = new Map<string, StoredMediaFiles>();
    for (const asset of DEMO_MEDIA_ASSETS) {
      const stamped = stampMediaFiles(
        Object.entries(asset.files).map(([key, file]) => [key, mediaFileContent(file)]),
        undefined,
        now,
      );
      files.set(asset.uid, media ? await uploadIcons(manager, blobs, media, asset, stamped) : stamped);
    }
    const mediaAssets = await insert(
      MediaAsset,
      DEMO_MEDIA_ASSETS.map(({ uid, name, description }) => ({
        uid,
        name,
        description,
        files: files.get(uid),
        version: 0,
        ownerUid: null,
      })),
    );
    if (media) {
      // Only the assets this run added refer to the icons: one an admin changed since keeps its own files.
      for (const uid of mediaAssets.addedUids) {
        for (const [variant, file] of Object.entries(files.get(uid)!)) await blobs.refer(manager, uid, variant, file.sha256sum!);
      }
    }
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
    const count = ({ total, added }: SeedCount): SeedCount => ({ total, added });
    return { mediaAssets: count(mediaAssets), textAssets: count(textAssets), items: count(items), achievements: count(achievements) };
  });
}

/**
 * Draws the asset's icons and keeps them in the store, as an upload would (under each digest's lock,
 * with its blob row): the variants then name the stored bytes.
 */
async function uploadIcons(
  manager: EntityManager,
  blobs: MediaBlobsRepository,
  media: SeedMedia,
  asset: DemoMediaAsset,
  files: StoredMediaFiles,
): Promise<StoredMediaFiles> {
  const slug = asset.files.default.name.replace(/\.png$/, '');
  for (const [variant, size] of Object.entries(ICON_SIZES)) {
    const icon = demoIcon(slug, size);
    const received = await media.store.receive(Readable.from([icon]), { maxBytes: icon.length, timeoutMs: 60_000 });
    await blobs.lockDigest(manager, received.sha256);
    await media.store.keep(received);
    await blobs.recordBlob(manager, received.sha256, received.size);
    const name = `${slug.slice(slug.lastIndexOf('/') + 1)}-${size}.png`;
    const uri = storedFileUri(media.baseUrl, 'image/png', received.sha256);
    // Stamped as created with these files: version 0, whatever the catalog's placeholder was.
    files = {
      ...files,
      [variant]: { ...files[variant], mimetype: 'image/png', name, uri, sha256sum: received.sha256, size: received.size },
    };
  }
  return files;
}
