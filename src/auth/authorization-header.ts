/**
 * The token of an `Authorization: jwt <token>` header. The scheme word is case-insensitive and
 * `Bearer` is accepted too (docs/CONTRACT.md section 5). Undefined when the header is absent or malformed.
 */
export function readAuthorizationToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^\s*(?:jwt|bearer)\s+([A-Za-z0-9\-_.~+/=]{1,8192})\s*$/i.exec(header);
  return match?.[1];
}
