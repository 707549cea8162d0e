/** Who an identity provider says the caller is. */
export interface ProviderIdentity {
  provider: 'idp1' | 'idp2';
  subject: string;
  name?: string;
  email?: string;
}

/** The profile claims of a provider token or introspection answer, kept only when they are strings. */
export function profileClaims(claims: Record<string, unknown>): Pick<ProviderIdentity, 'name' | 'email'> {
  const text = (value: unknown) => (typeof value === 'string' && value.length <= 320 ? value : undefined);
  return { name: text(claims.name) ?? text(claims.preferred_username), email: text(claims.email) };
}
