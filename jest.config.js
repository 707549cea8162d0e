// Jest runs in ESM mode (`node --experimental-vm-modules`): NestJS 12 packages are ESM-only.
const typescript = [
  'ts-jest',
  {
    useESM: true,
    tsconfig: '<rootDir>/tsconfig.test.json',
    astTransformers: { before: ['<rootDir>/test/support/swagger-plugin.cjs'] },
    diagnostics: { ignoreCodes: ['TS151001'] },
  },
];

export const shared = {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // Relative imports carry `.js` suffixes (ESM); the sources are `.ts`.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    // @nestjs/throttler is CommonJS requiring the ESM-only @nestjs/common and @nestjs/core.
    '/node_modules/@nestjs/throttler/.+\\.js$': '<rootDir>/test/support/nest-require-transformer.cjs',
    '^.+\\.(t|j)s$': typescript,
  },
  setupFiles: ['<rootDir>/test/support/nest-esm-namespaces.ts'],
  // content-disposition and cookie are ESM-only but required from CommonJS packages (@fastify/static,
  // light-my-request): let ts-jest transform them.
  transformIgnorePatterns: ['/node_modules/(?!(content-disposition|cookie|@nestjs/throttler)/)'],
};

export default {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
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
