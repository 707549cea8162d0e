import type { ArgumentMetadata } from '@nestjs/common';
import { ApiException } from '../common/errors.js';
import { RequestValidationPipe } from '../common/validation.pipe.js';
import { CreateMediaAssetDto } from './dto/create-media-asset.dto.js';
import { MediaFileDto } from './dto/media-file.dto.js';
import { UpdateMediaAssetDto } from './dto/update-media-asset.dto.js';
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

describe('files validation (through the global validation pipe)', () => {
  const pipe = new RequestValidationPipe();
  const FILE = { mimetype: 'image/png', name: 'a.png', uri: 'https://cdn.example.com/a.png' };

  async function validate(metatype: ArgumentMetadata['metatype'], body: unknown) {
    return pipe.transform(body, { type: 'body', metatype });
  }

  /** The `errors` of the 400 the pipe raises for `body`. */
  async function errorsOf(body: unknown, metatype: ArgumentMetadata['metatype'] = CreateMediaAssetDto) {
    try {
      await validate(metatype, body);
    } catch (error) {
      expect(error).toBeInstanceOf(ApiException);
      expect((error as ApiException).getStatus()).toBe(400);
      return (error as ApiException).extra.errors ?? [];
    }
    throw new Error('the body was accepted');
  }

  it('accepts a valid map and hands the service a Map of MediaFileDto', async () => {
    const body = (await validate(CreateMediaAssetDto, {
      name: 'Art',
      files: { default: { ...FILE, sha256sum: 'AB'.repeat(32) }, 'thumb_64.v2-x': FILE },
    })) as CreateMediaAssetDto;

    expect(body.files).toBeInstanceOf(Map);
    expect([...body.files.keys()]).toEqual(['default', 'thumb_64.v2-x']);
    expect(body.files.get('default')).toBeInstanceOf(MediaFileDto);
    expect(body.files.get('default')).toMatchObject({ ...FILE, sha256sum: 'AB'.repeat(32) });
  });

  it('accepts the service fields of a file sent back with it', async () => {
    await expect(
      validate(CreateMediaAssetDto, {
        name: 'Art',
        files: { default: { ...FILE, uid: 'x', dateCreated: 'x', dateModified: 'x', version: 3, size: null } },
      }),
    ).resolves.toBeInstanceOf(CreateMediaAssetDto);
  });

  it.each([
    ['a missing map', { name: 'Art' }, 'files'],
    ['a map that is a string', { name: 'Art', files: 'a.png' }, 'files'],
    ['a map without default', { name: 'Art', files: { thumbnail: FILE } }, 'files'],
    ['a key with a slash', { name: 'Art', files: { default: FILE, 'a/b': FILE } }, 'files'],
    ['a key of 65 characters', { name: 'Art', files: { default: FILE, ['k'.repeat(65)]: FILE } }, 'files'],
    ['a variant that is null', { name: 'Art', files: { default: null } }, 'files.default'],
    ['a variant that is an array', { name: 'Art', files: { default: [FILE] } }, 'files.default'],
    ['a digest of 65 characters', { name: 'Art', files: { default: { ...FILE, sha256sum: 'a'.repeat(65) } } }, 'files.default.sha256sum'],
    ['a digest that is a number', { name: 'Art', files: { default: { ...FILE, sha256sum: 12 } } }, 'files.default.sha256sum'],
    ['a media type with a space', { name: 'Art', files: { default: { ...FILE, mimetype: 'image/ png' } } }, 'files.default.mimetype'],
    [
      'a media type of 256 characters',
      { name: 'Art', files: { default: { ...FILE, mimetype: `image/${'p'.repeat(250)}` } } },
      'files.default.mimetype',
    ],
    ['a javascript: uri', { name: 'Art', files: { default: { ...FILE, uri: 'javascript:alert(1)' } } }, 'files.default.uri'],
    [
      'a uri longer than 2048',
      { name: 'Art', files: { default: { ...FILE, uri: `https://cdn.example.com/${'a'.repeat(2030)}` } } },
      'files.default.uri',
    ],
    ['an empty file name', { name: 'Art', files: { default: { ...FILE, name: '' } } }, 'files.default.name'],
    ['a missing uri', { name: 'Art', files: { default: { mimetype: 'image/png', name: 'a.png' } } }, 'files.default.uri'],
  ])('refuses %s, naming %s', async (_case, body, field) => {
    expect(await errorsOf(body)).toContainEqual(expect.objectContaining({ field }));
  });

  it('reports a map that is not an object once, at files', async () => {
    expect(await errorsOf({ name: 'Art', files: 42 })).toEqual([{ field: 'files', message: expect.stringContaining('must be an object') }]);
  });

  it('accepts 32 variants and refuses 33', async () => {
    const variants = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [i ? `v${i}` : 'default', FILE]));
    await expect(validate(CreateMediaAssetDto, { name: 'Art', files: variants(32) })).resolves.toBeInstanceOf(CreateMediaAssetDto);
    expect(await errorsOf({ name: 'Art', files: variants(33) })).toEqual([{ field: 'files', message: 'must have at most 32 variants' }]);
  });

  it('lets an update leave files out, but not send null or a map without default', async () => {
    const body = (await validate(UpdateMediaAssetDto, { name: 'Renamed' })) as UpdateMediaAssetDto;
    expect(body.files).toBeUndefined();
    expect(await errorsOf({ files: null }, UpdateMediaAssetDto)).toContainEqual(expect.objectContaining({ field: 'files' }));
    expect(await errorsOf({ files: { icon: FILE } }, UpdateMediaAssetDto)).toContainEqual(
      expect.objectContaining({ field: 'files', message: 'must include the default variant' }),
    );
    expect(await errorsOf({ files: { default: { ...FILE, sha256sum: 'z' } } }, UpdateMediaAssetDto)).toContainEqual(
      expect.objectContaining({ field: 'files.default.sha256sum' }),
    );
  });
});
