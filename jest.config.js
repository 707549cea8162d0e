// Jest runs in ESM mode (`node --experimental-vm-modules`): NestJS 12 packages are ESM-only.
// Neither transform reports type errors (ts-jest in ESM mode computes them, then drops them):
// `npm run lint` type-checks the sources and the tests.

// The unit tests: each file transpiled on its own by SWC, without TypeScript or the Swagger plugin, so
// that one file runs in a couple of seconds. Legacy decorators with their design-type metadata, as
// tsconfig.json compiles them: Nest's dependency injection and class-validator read it.
const transpiled = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true } } },
];

// The e2e and fault suites serve the OpenAPI document, whose DTO schemas and route summaries the Swagger
// CLI plugin writes, as `nest build` does. The plugin reads the types of the whole program, which only
// ts-jest builds (with tsconfig.test.json: isolatedModules would make it transpile file by file too).
const withSwaggerPlugin = [
  'ts-jest',
  {
    useESM: true,
    tsconfig: '<rootDir>/tsconfig.test.json',
    astTransformers: { before: ['<rootDir>/test/support/swagger-plugin.cjs'] },
    diagnostics: { ignoreCodes: ['TS151001'] },
  },
];

const transformWith = (typescript) => ({
  // @nestjs/throttler is CommonJS requiring the ESM-only @nestjs/common and @nestjs/core.
  '/node_modules/@nestjs/throttler/.+\\.js$': '<rootDir>/test/support/nest-require-transformer.cjs',
  '^.+\\.(t|j)s$': typescript,
});

const common = {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // Relative imports carry `.js` suffixes (ESM); the sources are `.ts`.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  setupFiles: ['<rootDir>/test/support/nest-esm-namespaces.ts'],
  // content-disposition and cookie are ESM-only but required from CommonJS packages (@fastify/static,
  // light-my-request): let the transform have them.
  transformIgnorePatterns: ['/node_modules/(?!(content-disposition|cookie|@nestjs/throttler)/)'],
};

/** What the e2e and fault suites share (jest.faults.config.js). */
export const shared = { ...common, transform: transformWith(withSwaggerPlugin) };

export default {
  projects: [
    {
      ...common,
      transform: transformWith(transpiled),
      displayName: 'unit',
      // Only src/ is searched for the unit tests, not the e2e suites' folders, dist/ or .data/.
      roots: ['<rootDir>/src'],
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.mjs',
      globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
    },
  ],
  // A global option: jest ignores it inside a project. Generous for the e2e suites on a loaded machine.
  testTimeout: 60_000,
};
