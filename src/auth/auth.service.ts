import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { InjectConfig } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { PersonasRepository } from '../personas/personas.repository.js';
import type { ProviderIdentity } from './identity.js';
import type { User } from './user.entity.js';
import { UsersRepository } from './users.repository.js';

export const ADMIN_ROLE = 'admin';
export const USER_ROLE = 'user';

/** The claims of the JWTs this service issues, besides iss, aud, iat and exp. */
export interface AccessTokenClaims {
  sub: string;
  roles: string[];
  /** Set by the JWT library when it signs. */
  exp?: number;
}

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersRepository,
    private readonly personas: PersonasRepository,
    private readonly jwt: JwtService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Exchanges a verified provider identity for our JWT, creating the user on the first sign-in. */
  async signIn(identity: ProviderIdentity): Promise<{ token: string }> {
    const user = await this.findOrCreateUser(identity);
    const roles = this.config.adminUsers.includes(`${identity.provider}:${identity.subject}`) ? [USER_ROLE, ADMIN_ROLE] : [USER_ROLE];
    const claims: AccessTokenClaims = { sub: user.uid, roles };
    return { token: await this.jwt.signAsync(claims) };
  }

  /**
   * The first sign-in of a (provider, subject) creates the user and a default persona, in one
   * transaction; two first sign-ins racing each other end with one user (the unique key decides).
   */
  private findOrCreateUser(identity: ProviderIdentity): Promise<User> {
    return this.users.transaction(async (transaction) => {
      const { user, created } = await this.users.insertOrFind(transaction, identity);
      if (created) await this.personas.insert({ userUid: user.uid, name: (identity.name ?? identity.subject).slice(0, 100) }, transaction);
      return user;
    });
  }
}
