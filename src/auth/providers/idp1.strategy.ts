import { Inject, Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-custom';
import { InjectConfig } from '../../config/config.module.js';
import type { AppConfig } from '../../config/environment.js';
import { ApiException, ErrorCode, unauthorized } from '../../common/errors.js';
import { readAuthorizationToken } from '../authorization-header.js';
import { DevIdentityProvider } from './dev-identity-provider.js';
import { profileClaims, type ProviderIdentity } from '../users/identity.js';
import { DEV_IDENTITY_PROVIDER } from './dev-identity-provider.token.js';
import { ProviderKeySet, UnpublishedKey } from './provider-keys.js';
import { ProviderTokenRejected, verifyProviderToken } from './provider-token.js';

const KEY_SET_TIMEOUT_MS = 5000;
const KEY_CACHE_MS = 10 * 60 * 1000;

/**
 * idp1, an OpenID Connect provider: its token is a JWT checked against the provider's JWKS, which is
 * cached and fetched again when a token names an unknown `kid` (key rotation).
 */
@Injectable()
export class Idp1Strategy extends PassportStrategy(Strategy, 'idp1') {
  private readonly logger = new Logger(Idp1Strategy.name);
  private readonly keys: ProviderKeySet | undefined;
  private readonly issuer: string | undefined;

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @Inject(DEV_IDENTITY_PROVIDER) devIdentityProvider: DevIdentityProvider | null,
  ) {
    super();
    if (config.idp1.jwksUrl) {
      const url = config.idp1.jwksUrl;
      this.keys = new ProviderKeySet(() => fetchKeySet(url), {
        cacheMs: KEY_CACHE_MS,
        cooldownMs: config.idp1.jwksCooldownSeconds * 1000,
      });
      this.issuer = config.idp1.issuer;
    } else if (devIdentityProvider) {
      const { jwks } = devIdentityProvider;
      this.keys = new ProviderKeySet(() => Promise.resolve(jwks), { cacheMs: KEY_CACHE_MS, cooldownMs: 0 });
      this.issuer = devIdentityProvider.issuer;
    }
  }

  validate(request: FastifyRequest): Promise<ProviderIdentity> {
    const token = readAuthorizationToken(request.headers.authorization);
    if (!token) throw unauthorized('send the idp1 token as "Authorization: jwt <token>"');
    return this.verify(token);
  }

  /** Who an idp1 token names: 401 for a token the provider's keys reject, 503 when they cannot be had. */
  async verify(token: string): Promise<ProviderIdentity> {
    if (!this.keys) throw unauthorized('idp1 is not configured on this server');
    try {
      const payload = await verifyProviderToken(token, {
        keys: this.keys,
        issuer: this.issuer,
        audience: this.config.idp1.audience,
        clockTolerance: 30,
      });
      if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) {
        throw unauthorized('the idp1 token has no usable subject');
      }
      return { provider: 'idp1', subject: payload.sub, ...profileClaims(payload) };
    } catch (error) {
      if (error instanceof ApiException) throw error;
      if (error instanceof ProviderTokenRejected) throw unauthorized(`the idp1 token ${error.message}`);
      if (error instanceof UnpublishedKey) throw unauthorized('the idp1 token is signed with a key the provider does not publish');
      this.logger.warn(`idp1 key set unavailable: ${(error as Error).message}`);
      throw new ApiException(503, ErrorCode.PROVIDER_UNAVAILABLE, 'idp1 is unavailable: try again shortly');
    }
  }
}

/**
 * The provider's key set. Only a token the provider's keys reject is the player's fault (401, and
 * UnpublishedKey when the set has no key of its `kid`); everything this throws, a set that times out,
 * answers 500 or cannot be reached at all, is the provider's (503), so that an unforeseen network error
 * never signs a player out.
 */
async function fetchKeySet(url: string): Promise<{ keys: unknown[] }> {
  const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(KEY_SET_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`the key set answered HTTP ${response.status}`);
  const set = (await response.json()) as { keys?: unknown };
  if (!Array.isArray(set?.keys)) throw new Error('the key set is not a JSON Web Key Set');
  return set as { keys: unknown[] };
}
