import { randomUUID } from 'node:crypto';

/** Variant keys: `default`, `thumbnail`, `1080p`, `icon.small`... */
export const VARIANT_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
/** `type/subtype` (RFC 6838 restricted names), e.g. `image/png`, `audio/ogg`, `application/vnd.game+json`. */
export const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;
export const SHA256_HEX = /^[0-9a-f]{64}$/i;

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
  /** Bytes of a file stored by the service (uploaded); null for a file hosted elsewhere. */
  size: number | null;
}

/** A file uploaded to the service: its content, all of it known from the bytes but the name. */
export interface UploadedFile extends MediaFileContent {
  sha256sum: string;
  size: number;
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
 * Whether a variant the client sent through the JSON routes still names the bytes stored for it: a
 * stored file may be renamed there, but its uri, digest and type come from its upload.
 */
function keepsStoredBytes(stored: StoredMediaFile, incoming: MediaFileContent): boolean {
  return (
    stored.size !== null && stored.uri === incoming.uri && stored.sha256sum === incoming.sha256sum && stored.mimetype === incoming.mimetype
  );
}

/**
 * The `files` map to store when a client sends `incoming` (the whole map: PUT merges top-level fields,
 * and `files` is one field). Each variant keeps its identity across updates, so that a game client can
 * tell which downloads it may keep:
 * - a key whose content is unchanged keeps its uid, dates and version;
 * - a changed one keeps its uid and dateCreated, and gets version + 1 and dateModified = `now`; a stored
 *   (uploaded) file stays one only while its uri, digest and type are unchanged;
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
      const size = keepsStoredBytes(before, content) ? before.size : null;
      files[key] = { ...content, uid: before.uid, dateCreated: before.dateCreated, dateModified: now, version: before.version + 1, size };
    } else {
      files[key] = { ...content, uid: newUid(), dateCreated: now, dateModified: now, version: 0, size: null };
    }
  }
  return files;
}

/**
 * The map with `variant` set to an uploaded file: a new variant is stamped afresh; an existing one
 * keeps its uid and dateCreated and gets version + 1, unless the upload changed nothing (the same
 * bytes, type and name again), which leaves it as it was.
 */
export function withUploadedFile(
  files: StoredMediaFiles,
  variant: string,
  file: UploadedFile,
  now: string,
  newUid: () => string = randomUUID,
): StoredMediaFiles {
  const before = Object.hasOwn(files, variant) ? files[variant] : undefined;
  if (before && sameContent(before, file) && before.size === file.size) return files;
  const stamped = before
    ? { ...file, uid: before.uid, dateCreated: before.dateCreated, dateModified: now, version: before.version + 1 }
    : { ...file, uid: newUid(), dateCreated: now, dateModified: now, version: 0 };
  return { ...files, [variant]: stamped };
}

/** The map without `variant`. */
export function withoutVariant(files: StoredMediaFiles, variant: string): StoredMediaFiles {
  const { [variant]: _removed, ...rest } = files;
  return rest;
}

/** The variants that are files stored here (uploaded): each refers to its blob. */
export function storedVariants(files: StoredMediaFiles): string[] {
  return Object.keys(files).filter((key) => files[key].size !== null);
}

/**
 * The variants whose uri points into the service's media store (`<baseUrl>/media/…`) without being a
 * stored file of theirs: a uri of the store is made by an upload, never written by hand (the bytes
 * would be swept away, no variant referring to them).
 */
export function borrowedStoreUris(files: StoredMediaFiles, baseUrl: string): string[] {
  return Object.keys(files).filter((key) => files[key].size === null && files[key].uri.startsWith(`${baseUrl}/media/`));
}

/** The uri of uploaded bytes: content-addressed, with the type they are served as. */
export function storedFileUri(baseUrl: string, mimetype: string, sha256: string): string {
  return `${baseUrl}/media/${mimetype}/${sha256}`;
}
