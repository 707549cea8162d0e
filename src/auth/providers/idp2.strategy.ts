import { Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-custom';
import { ApiException, ErrorCode, unauthorized } from '../../common/errors.js';
import { InjectConfig } from '../../config/config.module.js';
import type { AppConfig } from '../../config/environment.js';
import { readAuthorizationToken } from '../authorization-header.js';
import { profileClaims, type ProviderIdentity } from '../users/identity.js';

const INTROSPECTION_TIMEOUT_MS = 5000;

/**
 * idp2, an OAuth 2.0 provider: the token is opaque to us, so the provider is asked about it by token
 * introspection (RFC 7662). A provider that is down or slow is 503, not 401: the player's token may be
 * perfectly good, and a client should retry rather than sign the player out.
 */
@Injectable()
export class Idp2Strategy extends PassportStrategy(Strategy, 'idp2') {
  private readonly logger = new Logger(Idp2Strategy.name);

  constructor(@InjectConfig() private readonly config: AppConfig) {
    super();
  }

  validate(request: FastifyRequest): Promise<ProviderIdentity> {
    const token = readAuthorizationToken(request.headers.authorization);
    if (!token) throw unauthorized('send the idp2 token as "Authorization: jwt <token>"');
    return this.verify(token);
  }

  /** Who an idp2 token names: 401 for a token the provider calls inactive, 503 when it does not answer. */
  async verify(token: string): Promise<ProviderIdentity> {
    const { introspectionUrl, clientId, clientSecret } = this.config.idp2;
    if (!introspectionUrl || !clientId || !clientSecret) throw unauthorized('idp2 is not configured on this server');

    const answer = await this.introspect(introspectionUrl, clientId, clientSecret, token);
    if (answer.active !== true) throw unauthorized('the idp2 token is not active');
    if (typeof answer.exp === 'number' && answer.exp * 1000 < Date.now()) throw unauthorized('the idp2 token has expired');
    const subject = [answer.sub, answer.username].find((value) => typeof value === 'string' && value !== '');
    if (typeof subject !== 'string' || subject.length > 255) throw unauthorized('the idp2 token has no usable subject');
    return { provider: 'idp2', subject, ...profileClaims(answer) };
  }

  private async introspect(url: string, clientId: string, clientSecret: string, token: string): Promise<Record<string, unknown>> {
    const unavailable = (reason: string) => {
      this.logger.warn(`idp2 introspection failed: ${reason}`);
      return new ApiException(503, ErrorCode.PROVIDER_UNAVAILABLE, 'idp2 is unavailable: try again shortly');
    };
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(INTROSPECTION_TIMEOUT_MS),
      });
    } catch (error) {
      throw unavailable((error as Error).message);
    }
    if (!response.ok) throw unavailable(`HTTP ${response.status}`);
    try {
      const answer: unknown = await response.json();
      if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new Error('not an object');
      return answer as Record<string, unknown>;
    } catch (error) {
      throw unavailable(`unreadable answer (${(error as Error).message})`);
    }
  }
}
