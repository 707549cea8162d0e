/** What JSON values a client sends may hold, wherever the service stores them (skill progress, storage objects). */

/** Where (`['xp', '0']`; `[]`: the value itself) the first number in a parsed JSON value that is not finite is, if any. */
export function nonFiniteNumberPath(value: unknown): string[] | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : [];
  if (value === null || typeof value !== 'object') return undefined;
  // The validation pipe has refused bodies nested deeper than 64 levels already: the recursion is bounded.
  for (const [key, inner] of Object.entries(value)) {
    const found = nonFiniteNumberPath(inner);
    if (found) return [key, ...found];
  }
  return undefined;
}
