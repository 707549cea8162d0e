import { randomUUID } from 'node:crypto';

/** What a client states about one file variant. */
export interface MediaFileContent {
  mimetype: string;
  name: string;
  uri: string;
  /** Lower-case hex SHA-256 of the file, or null when the client did not give one. */
  sha256sum: string | null;
}

/** A stored file variant: the client's content plus the bookkeeping the service keeps per file. */
export interface StoredMediaFile extends MediaFileContent {
  uid: string;
  dateCreated: string;
  dateModified: string;
  version: number;
}

export type StoredMediaFiles = Record<string, StoredMediaFile>;

/** The client-settable part of a file object, normalised (digest in lower case, absent digest as null). */
export function mediaFileContent(file: { mimetype: string; name: string; uri: string; sha256sum?: string | null }): MediaFileContent {
  return {
    mimetype: file.mimetype,
    name: file.name,
    uri: file.uri,
    sha256sum: file.sha256sum ? file.sha256sum.toLowerCase() : null,
  };
}

function sameContent(stored: MediaFileContent, incoming: MediaFileContent): boolean {
  return (
    stored.mimetype === incoming.mimetype &&
    stored.name === incoming.name &&
    stored.uri === incoming.uri &&
    (stored.sha256sum ?? null) === incoming.sha256sum
  );
}

/**
 * The `files` map to store when a client sends `incoming` (the whole map: PUT merges top-level fields,
 * and `files` is one field). Each variant keeps its identity across updates, so that a game client can
 * tell which downloads it may keep:
 * - a key whose content is unchanged keeps its uid, dates and version;
 * - a changed one keeps its uid and dateCreated, and gets version + 1 and dateModified = `now`;
 * - a new key gets a fresh uid, both dates `now` and version 0;
 * - keys not sent are gone.
 */
export function stampMediaFiles(
  incoming: Iterable<[string, MediaFileContent]>,
  previous: StoredMediaFiles | undefined,
  now: string,
  newUid: () => string = randomUUID,
): StoredMediaFiles {
  const files: StoredMediaFiles = {};
  for (const [key, content] of incoming) {
    const before = previous && Object.hasOwn(previous, key) ? previous[key] : undefined;
    if (before && sameContent(before, content)) {
      files[key] = before;
    } else if (before) {
      files[key] = { ...content, uid: before.uid, dateCreated: before.dateCreated, dateModified: now, version: before.version + 1 };
    } else {
      files[key] = { ...content, uid: newUid(), dateCreated: now, dateModified: now, version: 0 };
    }
  }
  return files;
}
