import type { OpenAPIObject } from '@nestjs/swagger';
import { jsonObjectBounds } from '../common/validators.js';
import type { AppConfig } from '../config/environment.js';

/**
 * The storage limits this instance runs with, in its document: no JSON Schema keyword bounds the bytes
 * of a value, so the value's schema says it in words and as `x-max-bytes`, and the write says the quotas.
 */
export function documentStorageLimits(document: OpenAPIObject, { storage }: Pick<AppConfig, 'storage'>): void {
  const value = (document.components?.schemas?.StorageWriteDto as { properties?: Record<string, Record<string, unknown>> } | undefined)
    ?.properties?.value;
  if (value) {
    value.description =
      `A JSON object of at most ${storage.valueMaxBytes} bytes of compact JSON (STORAGE_VALUE_MAX_BYTES): larger is 413 and ` +
      'nothing of the batch is written. Numbers must be finite; strings and keys may not hold U+0000.';
    Object.assign(value, jsonObjectBounds(storage.valueMaxBytes));
  }
  const write = (document.paths['/storage'] as Record<string, { description?: string }> | undefined)?.put;
  if (write) {
    write.description +=
      ` Quotas per player: ${storage.objectsPerOwner} objects and ${storage.bytesPerOwner} bytes of values ` +
      `(STORAGE_OBJECTS_PER_OWNER, STORAGE_BYTES_PER_OWNER); a guest, until it links an identity provider, ${storage.guestObjectsPerOwner} ` +
      `objects and ${storage.guestBytesPerOwner} bytes (STORAGE_GUEST_OBJECTS_PER_OWNER, STORAGE_GUEST_BYTES_PER_OWNER); admins write past them.`;
  }
}
