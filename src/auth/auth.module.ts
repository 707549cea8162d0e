import { createSecretKey } from 'node:crypto';
import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { authConfig } from '../config/configuration.js';
import { PersonasModule } from '../personas/personas.module.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { DEV_IDENTITY_PROVIDER } from './auth.tokens.js';
import { loadDevIdentityProvider } from './dev-identity-provider.js';
import { loadOrCreateDevJwtSecret } from './dev-jwt-secret.js';
import { Idp1Strategy } from './idp1.strategy.js';
import { Idp2Strategy } from './idp2.strategy.js';
import { JwtGuard } from './jwt.guard.js';

@Module({
  imports: [
    PassportModule.register({ session: false }),
    PersonasModule,
    JwtModule.registerAsync({
      inject: [authConfig.KEY],
      useFactory: async (config: ConfigType<typeof authConfig>) => {
        const claims = { issuer: config.jwt.issuer, audience: config.jwt.audience };
        const secret = config.jwt.secret ?? (await loadOrCreateDevJwtSecret(config.dataDir));
        return {
          // A KeyObject, not the string: given a string, jsonwebtoken first tries to parse it as a public
          // key on every sign and verify, and that failing parse was a third of the CPU time of a
          // GET /items/{id} (auth0/node-jsonwebtoken#1046, nestjs/jwt#1971). Same key bytes, same tokens.
          secret: createSecretKey(Buffer.from(secret)),
          signOptions: { algorithm: 'HS256', expiresIn: config.jwt.ttlSeconds, ...claims },
          verifyOptions: { algorithms: ['HS256'], ...claims },
        };
      },
    }),
  ],
  controllers: [AuthController],
  // The rate limiter verifies our token too, to count requests per user (src/security/).
  exports: [JwtModule],
  providers: [
    AuthService,
    Idp1Strategy,
    Idp2Strategy,
    {
      provide: DEV_IDENTITY_PROVIDER,
      inject: [authConfig.KEY],
      useFactory: (config: ConfigType<typeof authConfig>) =>
        !config.isProduction && !config.idp1.jwksUrl ? loadDevIdentityProvider(config.dataDir) : null,
    },
    { provide: APP_GUARD, useClass: JwtGuard },
  ],
})
export class AuthModule {}
