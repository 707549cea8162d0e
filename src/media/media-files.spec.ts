import { type MediaFileContent, mediaFileContent, stampMediaFiles, type StoredMediaFiles } from './media-files.js';

const T0 = '2026-11-22T09:00:00.000Z';
const T1 = '2026-11-22T10:00:00.000Z';

const PNG: MediaFileContent = { mimetype: 'image/png', name: 'a.png', uri: 'https://cdn.example.com/a.png', sha256sum: null };
const WEBP: MediaFileContent = {
  mimetype: 'image/webp',
  name: 'a.webp',
  uri: 'https://cdn.example.com/a.webp',
  sha256sum: 'ab'.repeat(32),
};

/** Deterministic uids: uid-1, uid-2, ... */
function uidCounter(): () => string {
  let next = 0;
  return () => `uid-${++next}`;
}

describe('mediaFileContent', () => {
  it('keeps the client-settable fields, lower-cases the digest and turns a missing one into null', () => {
    expect(mediaFileContent({ ...PNG, sha256sum: 'AB'.repeat(32) })).toEqual({ ...PNG, sha256sum: 'ab'.repeat(32) });
    expect(mediaFileContent({ mimetype: 'image/png', name: 'a.png', uri: PNG.uri })).toEqual(PNG);
    expect(mediaFileContent({ ...PNG, sha256sum: null })).toEqual(PNG);
  });

  it('drops the service fields a client sent back', () => {
    const sentBack = { ...PNG, uid: 'forged', dateCreated: T0, dateModified: T0, version: 9, size: null } as MediaFileContent;
    expect(mediaFileContent(sentBack)).toEqual(PNG);
  });
});

describe('stampMediaFiles', () => {
  it('stamps every file of a new asset with its own uid, both dates and version 0', () => {
    const files = stampMediaFiles(
      [
        ['default', PNG],
        ['thumbnail', WEBP],
      ],
      undefined,
      T0,
      uidCounter(),
    );

    expect(files).toEqual({
      default: { ...PNG, uid: 'uid-1', dateCreated: T0, dateModified: T0, version: 0, size: null },
      thumbnail: { ...WEBP, uid: 'uid-2', dateCreated: T0, dateModified: T0, version: 0, size: null },
    });
  });

  it('uses random UUIDs by default', () => {
    const files = stampMediaFiles(
      [
        ['default', PNG],
        ['thumbnail', PNG],
      ],
      undefined,
      T0,
    );
    expect(files.default.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(files.default.uid).not.toBe(files.thumbnail.uid);
  });

  describe('on update', () => {
    const previous: StoredMediaFiles = {
      default: { ...PNG, uid: 'old-default', dateCreated: T0, dateModified: T0, version: 2, size: null },
      thumbnail: { ...WEBP, uid: 'old-thumbnail', dateCreated: T0, dateModified: T0, version: 0, size: null },
      banner: { ...PNG, name: 'banner.png', uid: 'old-banner', dateCreated: T0, dateModified: T0, version: 0, size: null },
    };

    it('keeps an unchanged file as it was: uid, dates and version', () => {
      const files = stampMediaFiles([['default', PNG]], previous, T1, uidCounter());
      expect(files.default).toBe(previous.default);
    });

    it.each([
      ['mimetype', { ...PNG, mimetype: 'image/apng' }],
      ['name', { ...PNG, name: 'b.png' }],
      ['uri', { ...PNG, uri: 'https://cdn.example.com/b.png' }],
      ['sha256sum', { ...PNG, sha256sum: 'cd'.repeat(32) }],
    ])('versions a file whose %s changed, keeping its uid and dateCreated', (_field, content) => {
      const files = stampMediaFiles([['default', content]], previous, T1, uidCounter());
      expect(files.default).toEqual({ ...content, uid: 'old-default', dateCreated: T0, dateModified: T1, version: 3, size: null });
    });

    it('counts a digest removed as a change', () => {
      const files = stampMediaFiles([['thumbnail', { ...WEBP, sha256sum: null }]], previous, T1, uidCounter());
      expect(files.thumbnail).toMatchObject({ uid: 'old-thumbnail', sha256sum: null, version: 1, dateModified: T1 });
    });

    it('stamps a new key afresh and removes the keys not sent', () => {
      const files = stampMediaFiles(
        [
          ['default', PNG],
          ['icon', WEBP],
        ],
        previous,
        T1,
        uidCounter(),
      );

      expect(Object.keys(files)).toEqual(['default', 'icon']);
      expect(files.icon).toEqual({ ...WEBP, uid: 'uid-1', dateCreated: T1, dateModified: T1, version: 0, size: null });
    });

    it('gives a variant re-added after its removal a new identity', () => {
      const withoutBanner = stampMediaFiles([['default', PNG]], previous, T1, uidCounter());
      const readded = stampMediaFiles(
        [
          ['default', PNG],
          ['banner', previous.banner],
        ],
        withoutBanner,
        T1,
        uidCounter(),
      );

      expect(readded.banner).toMatchObject({ uid: 'uid-1', version: 0, dateCreated: T1 });
    });

    it('does not mistake inherited object properties for stored variants', () => {
      const files = stampMediaFiles([['constructor', PNG]], previous, T1, uidCounter());
      expect(files.constructor).toEqual({ ...PNG, uid: 'uid-1', dateCreated: T1, dateModified: T1, version: 0, size: null });
    });
  });
});
