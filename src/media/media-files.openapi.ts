import type { OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '../config/environment.js';

/**
 * The file size this instance takes, in its document: no JSON Schema keyword bounds the bytes of a
 * binary body, so the upload's body schema states MEDIA_MAX_BYTES as `x-max-bytes` (past it, 413).
 */
export function documentMediaLimits(document: OpenAPIObject, { media }: Pick<AppConfig, 'media'>): void {
  const upload = (document.paths['/assets/media/{id}/files/{variant}'] as Record<string, { requestBody?: unknown }> | undefined)?.put;
  const content = (upload?.requestBody as { content?: Record<string, { schema?: Record<string, unknown> }> } | undefined)?.content;
  for (const { schema } of Object.values(content ?? {})) if (schema) schema['x-max-bytes'] = media.maxBytes;
}
