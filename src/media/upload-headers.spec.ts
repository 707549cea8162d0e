import { createHash } from 'node:crypto';
import { ApiException } from '../common/errors.js';
import { expectedDigest, isAllowedType, mediaTypeOf, runsScript, uploadName } from './upload-headers.js';

const BYTES = Buffer.from('hello');
const HEX = createHash('sha256').update(BYTES).digest('hex');
const BASE64 = createHash('sha256').update(BYTES).digest('base64');

/** The field a refusal names (it must be a 400). */
function refusedField(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException).getStatus()).toBe(400);
    return (error as ApiException).extra.errors?.[0]?.field;
  }
  throw new Error('not refused');
}

describe('mediaTypeOf', () => {
  it('reads the type without parameters, in lower case', () => {
    expect(mediaTypeOf('Image/PNG; charset=binary')).toBe('image/png');
    expect(mediaTypeOf('application/vnd.game+json')).toBe('application/vnd.game+json');
  });

  it.each([undefined, '', 'png', 'image/', '/png', 'image/png/x', 'image png', 'text/ html'])('has none for %p', (header) => {
    expect(mediaTypeOf(header)).toBeUndefined();
  });
});

describe('isAllowedType', () => {
  const allowed = ['image/png', 'audio/*'];
  it('takes a listed type and any type of a listed kind', () => {
    expect(isAllowedType('image/png', allowed)).toBe(true);
    expect(isAllowedType('audio/ogg', allowed)).toBe(true);
    expect(isAllowedType('image/jpeg', allowed)).toBe(false);
    expect(isAllowedType('text/html', allowed)).toBe(false);
  });
});

describe('runsScript', () => {
  it.each(['text/html', 'image/svg+xml', 'application/xml', 'text/xml', 'application/xhtml+xml', 'application/pdf', 'text/javascript'])(
    '%s is served as an attachment',
    (type) => expect(runsScript(type)).toBe(true),
  );
  it.each(['image/png', 'audio/ogg', 'application/json', 'text/plain', 'application/octet-stream'])('%s is served inline', (type) =>
    expect(runsScript(type)).toBe(false),
  );
});

describe('expectedDigest', () => {
  it('reads sha-256 from Content-Digest (RFC 9530), among other algorithms and parameters', () => {
    expect(expectedDigest(`sha-256=:${BASE64}:`, undefined)).toBe(HEX);
    expect(expectedDigest(`sha-512=:${Buffer.alloc(64).toString('base64')}:, sha-256=:${BASE64}:;x=1`, undefined)).toBe(HEX);
  });

  it('reads ?sha256= in any case, and takes both when they agree', () => {
    expect(expectedDigest(undefined, HEX.toUpperCase())).toBe(HEX);
    expect(expectedDigest(`sha-256=:${BASE64}:`, HEX)).toBe(HEX);
  });

  it('has none when neither names a sha-256', () => {
    expect(expectedDigest(undefined, undefined)).toBeUndefined();
    expect(expectedDigest(`sha-512=:${Buffer.alloc(64).toString('base64')}:`, undefined)).toBeUndefined();
  });

  it.each([
    ['a digest of the wrong length', `sha-256=:${Buffer.alloc(31).toString('base64')}:`],
    ['hex instead of a byte sequence', `sha-256=${HEX}`],
    ['no colons', `sha-256=${BASE64}`],
    ['garbage', 'this is not a dictionary'],
  ])('refuses %s in Content-Digest', (_case, header) => {
    expect(refusedField(() => expectedDigest(header, undefined))).toBe('Content-Digest');
  });

  it('refuses a malformed ?sha256= and two digests that disagree', () => {
    expect(refusedField(() => expectedDigest(undefined, 'abc'))).toBe('sha256');
    expect(refusedField(() => expectedDigest(`sha-256=:${BASE64}:`, 'ab'.repeat(32)))).toBe('sha256');
  });
});

describe('uploadName', () => {
  it('prefers ?name=, then the filename of Content-Disposition (RFC 8187 too), then the variant', () => {
    expect(uploadName('a.png', 'attachment; filename="b.png"', 'icon')).toBe('a.png');
    expect(uploadName(undefined, 'attachment; filename="b.png"', 'icon')).toBe('b.png');
    expect(uploadName(undefined, "attachment; filename*=UTF-8''%C3%A9p%C3%A9e.png", 'icon')).toBe('épée.png');
    expect(uploadName(undefined, 'inline', 'icon')).toBe('icon');
    expect(uploadName(undefined, undefined, 'icon')).toBe('icon');
  });

  it('refuses a name that is empty or too long, however it is given', () => {
    expect(refusedField(() => uploadName(undefined, 'attachment; filename=', 'icon'))).toBe('name');
    expect(refusedField(() => uploadName('', undefined, 'icon'))).toBe('name');
    expect(refusedField(() => uploadName('x'.repeat(256), undefined, 'icon'))).toBe('name');
  });
});
