import type { GameBackendClient, Schema } from './index.js';

/** What `uploadMediaFile` sends: the file's bytes and what they are. */
export interface MediaFileUpload {
  /** The media asset's uid. */
  assetId: string;
  /** The variant the file becomes: `default`, `thumbnail`, `icon.small`... */
  variant: string;
  /** The bytes: a Blob (a File from an <input>), an ArrayBuffer or a Uint8Array. */
  bytes: Blob | ArrayBuffer | Uint8Array;
  /** The file's media type, on the service's MEDIA_TYPES (else 415); a Blob's own type by default. */
  contentType?: string;
  /** The file name (else a File's name, else the variant key). */
  name?: string;
  /** `"<version>"` of the asset you read: the upload applies only to that version (else 409). */
  ifMatch?: string;
}

/** RFC 9530's `Content-Digest` of bytes: `sha-256=:<base64>:`, computed with WebCrypto. */
export async function contentDigest(bytes: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `sha-256=:${btoa(String.fromCharCode(...digest))}:`;
}

/**
 * Uploads a file to a media asset's variant (admins): `PUT /assets/media/{id}/files/{variant}` with the
 * bytes as the body and their SHA-256 as `Content-Digest`, so that bytes damaged on the way are refused
 * (400 DIGEST_MISMATCH) rather than stored. Answers the asset, whose `files[variant].uri` serves the
 * bytes, or the service's ErrorBody.
 */
export async function uploadMediaFile(
  client: GameBackendClient,
  upload: MediaFileUpload,
): Promise<{ data?: Schema<'MediaAsset'>; error?: Schema<'ErrorBody'>; response: Response }> {
  const blob = upload.bytes instanceof Blob ? upload.bytes : new Blob([new Uint8Array(upload.bytes)]);
  const buffer = await blob.arrayBuffer();
  const contentType = upload.contentType ?? (blob.type || 'application/octet-stream');
  const name = upload.name ?? (typeof File !== 'undefined' && blob instanceof File ? blob.name : undefined);
  return client.PUT('/assets/media/{id}/files/{variant}', {
    params: {
      path: { id: upload.assetId, variant: upload.variant },
      query: name === undefined ? {} : { name },
      header: { 'Content-Digest': await contentDigest(buffer), ...(upload.ifMatch !== undefined && { 'If-Match': upload.ifMatch }) },
    },
    // The body is the bytes, not JSON: sent as they are, under the file's own type.
    body: buffer as unknown as string,
    bodySerializer: (body: unknown) => body,
    headers: { 'Content-Type': contentType },
  });
}
