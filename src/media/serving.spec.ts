import { matchesEntityTag, rangeStillApplies, requestedRange } from './serving.js';

describe('requestedRange', () => {
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=10-', { start: 10, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=-500', { start: 0, end: 99 }],
    ['bytes=95-200', { start: 95, end: 99 }],
    [' bytes=99-99 ', { start: 99, end: 99 }],
  ])('%s of 100 bytes is %p', (header, range) => {
    expect(requestedRange(header, 100)).toEqual(range);
  });

  it.each(['bytes=100-', 'bytes=100-200', 'bytes=-0'])('%s of 100 bytes cannot be served (416)', (header) => {
    expect(requestedRange(header, 100)).toBe('unsatisfiable');
  });

  it('cannot serve any range of an empty file', () => {
    expect(requestedRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(requestedRange('bytes=-1', 0)).toBe('unsatisfiable');
  });

  it.each([undefined, 'bytes=0-1,5-6', 'items=0-1', 'bytes=5-1', 'bytes=-', 'bytes=a-b', 'bytes 0-1'])(
    'ignores %p: the whole file is served',
    (header) => {
      expect(requestedRange(header, 100)).toBeUndefined();
    },
  );
});

describe('matchesEntityTag', () => {
  const etag = '"abc"';
  it('matches the tag, a weak form of it, one in a list, and *', () => {
    expect(matchesEntityTag('"abc"', etag)).toBe(true);
    expect(matchesEntityTag('W/"abc"', etag)).toBe(true);
    expect(matchesEntityTag('"x", "abc"', etag)).toBe(true);
    expect(matchesEntityTag('*', etag)).toBe(true);
  });

  it('does not match another tag, an unquoted one, or none', () => {
    expect(matchesEntityTag('"abd"', etag)).toBe(false);
    expect(matchesEntityTag('abc', etag)).toBe(false);
    expect(matchesEntityTag(undefined, etag)).toBe(false);
  });
});

describe('rangeStillApplies', () => {
  it('applies without If-Range, or when it names the current tag; not for another tag or a date', () => {
    expect(rangeStillApplies(undefined, '"abc"')).toBe(true);
    expect(rangeStillApplies('"abc"', '"abc"')).toBe(true);
    expect(rangeStillApplies('"old"', '"abc"')).toBe(false);
    expect(rangeStillApplies('Wed, 21 Oct 2015 07:28:00 GMT', '"abc"')).toBe(false);
  });
});
