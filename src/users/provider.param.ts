import { applyDecorators, Param } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { IDENTITY_PROVIDERS, type IdentityProvider } from '../auth/users/identity.js';
import { badRequest } from '../common/errors.js';

/** The `{provider}` of a path: device, idp1 or idp2; anything else is 400. */
export const ProviderParam = () =>
  Param('provider', {
    transform: (value: string): IdentityProvider => {
      if (!(IDENTITY_PROVIDERS as readonly string[]).includes(value)) {
        throw badRequest(`provider must be one of ${IDENTITY_PROVIDERS.join(', ')}`, [
          { field: 'provider', message: `must be one of ${IDENTITY_PROVIDERS.join(', ')}` },
        ]);
      }
      return value as IdentityProvider;
    },
  });

export const ApiProviderParam = () =>
  applyDecorators(
    ApiParam({ name: 'provider', enum: IDENTITY_PROVIDERS, enumName: 'IdentityProvider', description: 'Which kind of identity.' }),
  );
