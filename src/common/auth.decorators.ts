import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

/** Who is calling, as the JwtGuard read it from our token. */
export interface Caller {
  /** The user's uid (the token's `sub`). */
  uid: string;
  roles: string[];
  isAdmin: boolean;
  /** The player session of the token (its `sid`). */
  sessionUid: string;
  /** When the token was issued (its `iat`). */
  tokenIssuedAt: Date;
  /** When the token expires (a socket opened with it closes then). */
  tokenExpiresAt: Date;
}

export type AuthenticatedRequest = FastifyRequest & { caller?: Caller };

export const IS_PUBLIC = 'auth:public';
export const IS_OPTIONAL_AUTH = 'auth:optional';

/** No token needed, and any token sent is ignored (health, metrics, the sign-in routes). */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(PUBLIC_EXTENSION, true));

/** A token may be sent: without one the caller is anonymous, with a bad one the answer is 401. */
export const OptionalAuth = () => applyDecorators(SetMetadata(IS_OPTIONAL_AUTH, true), ApiExtension(OPTIONAL_AUTH_EXTENSION, true));

/** Marks public operations in the generated document; src/openapi/ gives them `security: []` (or their own scheme). */
export const PUBLIC_EXTENSION = 'x-public';

/** Marks optional-auth operations in the generated document; src/openapi/ turns it into their security alternatives. */
export const OPTIONAL_AUTH_EXTENSION = 'x-optional-auth';

/** The signed-in caller; `undefined` only on @OptionalAuth() routes called anonymously. */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller | undefined => context.switchToHttp().getRequest<AuthenticatedRequest>().caller,
);
