import { parse as parseContentDisposition } from 'content-disposition';
import { badRequest } from '../common/errors.js';

/** Lower-case hex SHA-256: 64 characters. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A type's or subtype's name (RFC 6838 restricted-name), either case. */
export const MEDIA_TYPE_NAME = /^[A-Za-z0-9!#$&^_.+-]{1,127}$/;
/** `type/subtype` (RFC 6838 restricted names), in lower case. */
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]{1,127}\/[a-z0-9!#$&^_.+-]{1,127}$/;

/**
 * The media type of a Content-Type header, without its parameters and in lower case (`Image/PNG;
 * charset=x` is `image/png`), or undefined when there is none or it is malformed.
 */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0].trim().toLowerCase();
  return type && MEDIA_TYPE.test(type) ? type : undefined;
}

/** Whether `type` is on the allow-list: named there, or its kind is (`image/*`). */
export function isAllowedType(type: string, allowed: readonly string[]): boolean {
  return allowed.includes(type) || allowed.includes(`${type.slice(0, type.indexOf('/'))}/*`);
}

/**
 * Types a browser may run script in when it renders them (HTML, XHTML, SVG, any XML, which XSLT can
 * turn into HTML, PDF, whose viewers run JavaScript, and scripts themselves): served as attachments,
 * so that a file uploaded to the catalog never runs as a page of the service's origin.
 */
export function runsScript(type: string): boolean {
  return (
    type === 'text/html' ||
    type.endsWith('/xml') ||
    type.endsWith('+xml') ||
    type === 'application/pdf' ||
    /(?:java|ecma|j|vb)script$/.test(type) ||
    type === 'application/x-shockwave-flash' ||
    // Web archives and old components: browsers that open them run their pages.
    type.startsWith('multipart/') ||
    type.startsWith('message/') ||
    type === 'text/x-component'
  );
}

/**
 * The SHA-256 an upload says its bytes have, as lower-case hex: from `Content-Digest` (RFC 9530, a
 * structured-field dictionary such as `sha-256=:<base64>:, sha-512=:…:`; algorithms other than sha-256
 * are not checked) and `?sha256=<hex>`. Undefined when neither gives one; both given must agree.
 */
export function expectedDigest(contentDigest: string | undefined, sha256Query: string | undefined): string | undefined {
  const fromHeader = contentDigest === undefined ? undefined : sha256OfContentDigest(contentDigest);
  let fromQuery: string | undefined;
  if (sha256Query !== undefined) {
    fromQuery = sha256Query.toLowerCase();
    if (!SHA256_HEX.test(fromQuery)) {
      throw badRequest('sha256 must be 64 hexadecimal characters (a SHA-256 digest)', [
        { field: 'sha256', message: 'not a SHA-256 digest' },
      ]);
    }
  }
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw badRequest('Content-Digest and sha256 name different digests', [{ field: 'sha256', message: 'disagrees with Content-Digest' }]);
  }
  return fromHeader ?? fromQuery;
}

const DICTIONARY_MEMBER = /^([a-z*][a-z0-9_.*-]*)(?:=(.*?))?(?:;.*)?$/;
const BYTE_SEQUENCE = /^:([A-Za-z0-9+/]*={0,2}):$/;

function sha256OfContentDigest(header: string): string | undefined {
  const malformed = () =>
    badRequest('Content-Digest must look like sha-256=:<base64 of the 32-byte digest>:', [
      { field: 'Content-Digest', message: 'not an RFC 9530 digest' },
    ]);
  let digest: string | undefined;
  for (const member of header.split(',')) {
    const match = DICTIONARY_MEMBER.exec(member.trim());
    if (!match) throw malformed();
    if (match[1] !== 'sha-256') continue;
    const bytes = BYTE_SEQUENCE.exec(match[2] ?? '');
    const decoded = bytes ? Buffer.from(bytes[1], 'base64') : undefined;
    if (!decoded || decoded.length !== 32) throw malformed();
    digest = decoded.toString('hex');
  }
  return digest;
}

/** The name of an uploaded file: `?name=`, else the filename of `Content-Disposition`, else the variant's key. */
export function uploadName(nameQuery: string | undefined, contentDisposition: string | undefined, variant: string): string {
  let name = nameQuery;
  if (name === undefined && contentDisposition !== undefined) {
    // The parser is lenient: what it cannot read is no filename.
    name = parseContentDisposition(contentDisposition).parameters.filename;
  }
  name ??= variant;
  if (name.length < 1 || name.length > 255 || name.includes('\u0000')) {
    throw badRequest('the file name must be 1 to 255 characters', [{ field: 'name', message: 'must be 1 to 255 characters' }]);
  }
  return name;
}
