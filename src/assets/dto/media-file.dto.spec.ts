import type { ArgumentMetadata } from '@nestjs/common';
import { ApiException } from '../../common/errors.js';
import { RequestValidationPipe } from '../../common/validation.pipe.js';
import { CreateMediaAssetDto } from './create-media-asset.dto.js';
import { MediaFileDto } from './media-file.dto.js';
import { UpdateMediaAssetDto } from './update-media-asset.dto.js';

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
