import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { forbidden } from '../../common/errors.js';
import type { VerifiedIdentity } from './identity.js';

/**
 * A device id is a bearer secret the game keeps (whoever has it signs in as the guest), so it is stored
 * the way a password would be, but without a slow hash: an HMAC-SHA256 under a server key. Ids are random
 * values of 16+ characters, which no one guesses; what the key adds is that a copy of the database alone
 * cannot even tell whether a known id (read off a device) has an account. One keyed hash is about a
 * microsecond, where a slow hash would cap sign-ins at a few hundred a second per core.
 */
export class DeviceIds {
  private constructor(
    private readonly key: KeyObject,
    /** DEVICE_AUTH_ENABLED. */
    private readonly enabled: boolean,
  ) {}

  /**
   * The key is DEVICE_ID_KEY, or else derived from the JWT secret (HKDF, so that neither key tells
   * anything about the other). Whichever it is must never change: every stored hash depends on it.
   */
  static fromSecrets(deviceIdKey: string | undefined, jwtSecret: string, enabled = true): DeviceIds {
    const material = deviceIdKey ?? Buffer.from(hkdfSync('sha256', jwtSecret, '', 'game-backend device ids', 32));
    return new DeviceIds(createSecretKey(Buffer.from(material)), enabled);
  }

  /** The identity of a device, as it is stored; 403 where device ids are turned off (DEVICE_AUTH_ENABLED=false). */
  identityOf(deviceId: string): VerifiedIdentity {
    if (!this.enabled) throw forbidden('device sign-in is turned off on this server (DEVICE_AUTH_ENABLED=false)');
    return { provider: 'device', subject: this.subjectOf(deviceId) };
  }

  /** What is stored for a device id (43 base64url characters). */
  subjectOf(deviceId: string): string {
    return createHmac('sha256', this.key).update(deviceId, 'utf8').digest('base64url');
  }
}
