/**
 * A node of the OpenAPI document, or what its local `$ref` points to: answers, headers and parameters
 * many operations share are $refs to `components` (src/openapi/for-generators.ts).
 */
export function dereference<T = any>(document: object, node: T & { $ref?: unknown }): T {
  if (typeof node?.$ref !== 'string') return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (at as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) as T;
}
