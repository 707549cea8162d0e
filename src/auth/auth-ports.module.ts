import { Global, Module } from '@nestjs/common';
import { RevocationFeed, TokenVerifier } from '../security/identity.ports.js';
import { AccessTokens } from './access-token.js';
import { AuthModule } from './auth.module.js';
import { RevocationList } from './sign-in-sessions/revocation-list.js';

/**
 * Our access tokens as infrastructure sees them (security/identity.ports.ts): the rate limiter and the
 * socket inject TokenVerifier and RevocationFeed, and this module, global, says they are AuthModule's
 * AccessTokens and RevocationList. Only these two are global; everything else of AuthModule is had by
 * importing it.
 */
@Global()
@Module({
  imports: [AuthModule],
  providers: [
    { provide: TokenVerifier, useExisting: AccessTokens },
    { provide: RevocationFeed, useExisting: RevocationList },
  ],
  exports: [TokenVerifier, RevocationFeed],
})
export class AuthPortsModule {}
