import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { JwtService } from '@nestjs/jwt';
import { DataSource } from 'typeorm';
import { authConfig } from '../config/configuration.js';
import { PersonasService } from '../personas/personas.service.js';
import type { ProviderIdentity } from './identity.js';
import { User } from './user.entity.js';

export const ADMIN_ROLE = 'admin';
export const USER_ROLE = 'user';

/** The claims of the JWTs this service issues, besides iss, aud, iat and exp. */
export interface AccessTokenClaims {
  sub: string;
  roles: string[];
}

@Injectable()
export class AuthService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly jwt: JwtService,
    private readonly personas: PersonasService,
    @Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>,
  ) {}

  /** Exchanges a verified provider identity for our JWT, creating the user on the first sign-in. */
  async signIn(identity: ProviderIdentity): Promise<{ token: string }> {
    const user = await this.findOrCreateUser(identity);
    const roles = this.config.adminUsers.includes(`${identity.provider}:${identity.subject}`)
      ? [USER_ROLE, ADMIN_ROLE]
      : [USER_ROLE];
    const claims: AccessTokenClaims = { sub: user.uid, roles };
    return { token: await this.jwt.signAsync(claims) };
  }

  /**
   * The first sign-in of a (provider, subject) creates the user and a default persona, in one
   * transaction; two first sign-ins racing each other end with one user (the unique key decides).
   */
  private findOrCreateUser(identity: ProviderIdentity): Promise<User> {
    return this.dataSource.transaction(async (manager) => {
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(User)
        .values({ provider: identity.provider, subject: identity.subject, name: identity.name, email: identity.email })
        .orIgnore()
        .returning('*')
        .execute();
      const [created] = inserted.raw as User[];
      if (created) {
        await this.personas.createDefault(manager, created.uid, identity.name ?? identity.subject);
        return created;
      }
      return manager.findOneByOrFail(User, { provider: identity.provider, subject: identity.subject });
    });
  }
}
