/** The ways into an account: a device id the game keeps, or an identity provider's token. */
export const IDENTITY_PROVIDERS = ['device', 'idp1', 'idp2'] as const;
export type IdentityProvider = (typeof IDENTITY_PROVIDERS)[number];

/** Who an identity provider says the caller is. */
export interface ProviderIdentity {
  provider: 'idp1' | 'idp2';
  subject: string;
  name?: string;
  email?: string;
}

/** An identity as it is stored: for a device, `subject` is the keyed hash of its id (device-ids.ts). */
export interface VerifiedIdentity {
  provider: IdentityProvider;
  subject: string;
  name?: string;
  email?: string;
}

/** The profile claims of a provider token or introspection answer, kept only when they are strings. */
export function profileClaims(claims: Record<string, unknown>): Pick<ProviderIdentity, 'name' | 'email'> {
  const text = (value: unknown) => (typeof value === 'string' && value.length <= 320 ? value : undefined);
  return { name: text(claims.name) ?? text(claims.preferred_username), email: text(claims.email) };
}
