import { createPublicKey, type KeyObject } from 'node:crypto';

/** A key of a provider's set, and the algorithm it was published for, if it says. */
export interface ProviderKey {
  key: KeyObject;
  alg?: string;
}

/** The key types each family of algorithms signs with. */
const KEY_TYPES: Record<string, string[]> = { RS: ['rsa'], PS: ['rsa', 'rsa-pss'], ES: ['ec'], Ed: ['ed25519', 'ed448'] };

/** No key of the set has the token's `kid` (or fits its algorithm): the token's fault, not the provider's. */
export class UnpublishedKey extends Error {}

/**
 * A provider's key set (JWKS): fetched, its keys made KeyObjects once, kept for `cacheMs`, and fetched
 * again at once when a token names a `kid` it does not hold (key rotation), though not twice within
 * `cooldownMs`, so that made-up `kid`s cannot make the service hammer the provider. A failed fetch
 * leaves the keys held until then in use. Our own, where jose's createRemoteJWKSet did this: jwks-rsa
 * loads jose with require(), which jest cannot do beside the tests' own import of jose, and
 * node:crypto reads a JWK itself (`createPublicKey({ format: 'jwk' })`).
 */
export class ProviderKeySet {
  private keys: Array<ProviderKey & { kid?: string }> | undefined;
  private fetchedAt = 0;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly fetchSet: () => Promise<{ keys: unknown[] }>,
    private readonly options: { cacheMs: number; cooldownMs: number },
  ) {}

  /** The key for a token's `kid` and `alg`; throws UnpublishedKey, or the fetch's error. */
  async keyFor(kid: string | undefined, alg: string): Promise<ProviderKey> {
    if (!this.keys || Date.now() >= this.fetchedAt + this.options.cacheMs) await this.reload();
    let key = this.find(kid, alg);
    if (!key && Date.now() >= this.fetchedAt + this.options.cooldownMs) {
      await this.reload();
      key = this.find(kid, alg);
    }
    if (!key) throw new UnpublishedKey(`no key of the set has the kid ${kid ?? '(none)'} for ${alg}`);
    return key;
  }

  private find(kid: string | undefined, alg: string): ProviderKey | undefined {
    const types = KEY_TYPES[alg.slice(0, 2)] ?? [];
    const fits = (this.keys ?? []).filter(
      (key) => (kid === undefined || key.kid === kid) && types.includes(String(key.key.asymmetricKeyType)),
    );
    // Without a kid, only a set with one key that fits says which.
    return kid === undefined && fits.length > 1 ? undefined : fits[0];
  }

  private reload(): Promise<void> {
    this.pending ??= this.fetchSet()
      .then(({ keys }) => {
        this.keys = keys.flatMap((jwk) => keyOf(jwk as Record<string, unknown>));
        this.fetchedAt = Date.now();
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }
}

/** A signing key of the set as a KeyObject; none for an encryption key or one node:crypto cannot read. */
function keyOf(jwk: Record<string, unknown>): Array<ProviderKey & { kid?: string }> {
  if (jwk.use !== undefined && jwk.use !== 'sig') return [];
  if (Array.isArray(jwk.key_ops) && !jwk.key_ops.includes('verify')) return [];
  const { d: _d, ...publicJwk } = jwk;
  try {
    const key = createPublicKey({ key: publicJwk, format: 'jwk' });
    return [{ key, kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, alg: typeof jwk.alg === 'string' ? jwk.alg : undefined }];
  } catch {
    return [];
  }
}
