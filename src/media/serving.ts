import { runsScript } from './upload-headers.js';

/** A year: content-addressed bytes never change, so caches keep them as long as they may. */
const IMMUTABLE = 'max-age=31536000, immutable';

/**
 * The headers of every answer about an uploaded file: its type; its digest as the entity tag;
 * cacheable for a year, by anyone (a CDN) when files are public, else only by the client; never
 * sniffed into another type; a sandbox if a browser renders it anyway; and types that can run script
 * downloaded rather than rendered.
 */
export function fileHeaders(type: string, sha256: string, isPublic: boolean): Record<string, string> {
  return {
    'Content-Type': type,
    ETag: `"${sha256}"`,
    'Cache-Control': `${isPublic ? 'public' : 'private'}, ${IMMUTABLE}`,
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    ...(runsScript(type) && { 'Content-Disposition': 'attachment' }),
  };
}

/** The bytes `start` to `end` (inclusive) of a file. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * What a `Range` header asks of a file of `size` bytes (RFC 9110 section 14): one range, clamped to the
 * file; 'unsatisfiable' when it starts past the end (416); undefined when there is no header, or one
 * this service ignores and answers with the whole file, as the RFC allows: another unit, several
 * ranges, or a malformed one.
 */
export function requestedRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? Infinity : Number(match[2]);
  if (last < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}

/**
 * Whether `If-None-Match` holds the entity tag `etag` (weak comparison, as RFC 9110 section 13.1.2 asks
 * for this header), or is `*`: then the client's copy is current (304).
 */
export function matchesEntityTag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Whether a `Range` applies under `If-Range` (RFC 9110 section 13.1.5): only while the client's copy
 * is the current one, which content-addressed bytes always are when the tags agree (strong comparison).
 */
export function rangeStillApplies(ifRange: string | undefined, etag: string): boolean {
  return ifRange === undefined || ifRange.trim() === etag;
}
