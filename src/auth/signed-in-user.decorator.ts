import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { ProviderIdentity } from './users/identity.js';

/** The identity a provider strategy verified (passport puts it on `request.user`). */
export const SignedInUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ProviderIdentity => context.switchToHttp().getRequest<{ user: ProviderIdentity }>().user,
);
