import { createSecretKey } from 'node:crypto';
import { Logger, Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/environment.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { DEV_IDENTITY_PROVIDER } from './providers/dev-identity-provider.token.js';
import { DevSignInController } from './providers/dev-sign-in.controller.js';
import { loadDevIdentityProvider } from './providers/dev-identity-provider.js';
import { jwtSecretOf } from './dev-jwt-secret.js';
import { SignedCursors } from '../common/signed-cursors.js';
import { Idp1Strategy } from './providers/idp1.strategy.js';
import { Idp2Strategy } from './providers/idp2.strategy.js';
import { UsersRepository } from './users/users.repository.js';
import { AuthAuditRepository } from './auth-audit.repository.js';
import { PlayerSessionsController } from './sign-in-sessions/sign-in-sessions.controller.js';
import { SignInSessionsRepository } from './sign-in-sessions/sign-in-sessions.repository.js';
import { SignInSessionsService } from './sign-in-sessions/sign-in-sessions.service.js';
import { RevocationList } from './sign-in-sessions/revocation-list.js';
import { IdentitiesRepository } from './users/identities.repository.js';
import { DeviceIds } from './users/device-ids.js';
import { AccessTokens } from './access-token.js';

@Module({
  imports: [
    PassportModule.register({ session: false }),
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const claims = { issuer: config.jwt.issuer, audience: config.jwt.audience };
        const secret = await jwtSecretOf(config);
        return {
          // A KeyObject, not the string: given a string, jsonwebtoken first tries to parse it as a public
          // key on every sign and verify, and that failing parse was the largest cost of a
          // GET /items/{id} (auth0/node-jsonwebtoken#1046, nestjs/jwt#1971). Same key bytes, same tokens.
          secret: createSecretKey(Buffer.from(secret)),
          signOptions: { algorithm: 'HS256', expiresIn: config.jwt.ttlSeconds, ...claims },
          verifyOptions: { algorithms: ['HS256'], ...claims },
        };
      },
    }),
  ],
  controllers: [AuthController, PlayerSessionsController, DevSignInController],
  // The global guards (AppModule) and the socket verify our token through AccessTokens: the JwtGuard
  // (with the revocation list), the rate limiter to count per user, RealtimeAuth. UsersModule and the realtime hub use the sessions' repositories;
  // UsersModule also links identities, checked as sign-in checks them. SignedCursors is keyed from the token secret.
  exports: [
    JwtModule,
    AccessTokens,
    RevocationList,
    UsersRepository,
    SignInSessionsRepository,
    AuthAuditRepository,
    IdentitiesRepository,
    DeviceIds,
    SignedCursors,
    Idp1Strategy,
    Idp2Strategy,
  ],
  providers: [
    AuthService,
    IdentitiesRepository,
    {
      provide: DeviceIds,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        if (config.isProduction && config.device.enabled && !config.device.idKey) {
          new Logger('DeviceIds').warn(
            'DEVICE_ID_KEY is unset: device ids are keyed with a key derived from JWT_SECRET, so changing JWT_SECRET would lock ' +
              'every guest out of their account. Set DEVICE_ID_KEY before the first guest signs in (SECURITY.md, device ids).',
          );
        }
        return DeviceIds.fromSecrets(config.device.idKey, await jwtSecretOf(config), config.device.enabled);
      },
    },
    {
      provide: SignedCursors,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => SignedCursors.fromSecret(await jwtSecretOf(config)),
    },
    SignInSessionsService,
    UsersRepository,
    SignInSessionsRepository,
    AuthAuditRepository,
    RevocationList,
    AccessTokens,
    Idp1Strategy,
    Idp2Strategy,
    {
      provide: DEV_IDENTITY_PROVIDER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => (!config.isProduction && !config.idp1.jwksUrl ? loadDevIdentityProvider(config.dataDir) : null),
    },
  ],
})
export class AuthModule {}
