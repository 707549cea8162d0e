// ESLint (flat config) with typescript-eslint's type-aware rules; formatting is Prettier's
// (eslint-config-prettier turns off the rules it owns). `npm run lint` runs both.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.data/', 'bench/results/', 'test-artifacts/', 'sdk/schema.d.ts', 'console/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './bench/tsconfig.json', './console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Promises the service starts and does not await must say so (`void`); a forgotten await is a bug.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // A variable a closure reads before its one assignment (a server's handler and the server) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_` marks what a signature needs but the body does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // One data layer on TypeORM's public API (docs/ARCHITECTURE.md): no deep imports, no private members;
    // a TypeORM upgrade must not break the service. SQL the query builder cannot say is a named
    // statement (src/database/statement.ts), so repositories never call query() themselves.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['typeorm/*'], message: "Import from 'typeorm' itself: its inner modules are not its public API." }] },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'MemberExpression[property.name=/^(master|prepareHydratedValue|preparePersistentValue|setEntityValue|getEntityValue)$/]',
          message: 'A TypeORM internal: use its public API (query builder, repository, query runner) or a named statement.',
        },
        { selector: 'Property[key.name="fromDeserializer"]', message: 'A TypeORM internal option.' },
      ],
    },
  },
  {
    // Write routes take their decorators from src/audit/audited-routes.ts, which puts the admin audit on
    // them; Nest's own would leave an admin's write unrecorded.
    files: ['src/**/*.controller.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['typeorm/*'], message: "Import from 'typeorm' itself: its inner modules are not its public API." }],
          paths: [
            {
              name: '@nestjs/common',
              importNames: ['Post', 'Put', 'Patch', 'Delete', 'All'],
              message: 'Write routes take Post, Put, Patch and Delete from src/audit/audited-routes.ts (the admin audit).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.repository.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name="query"]',
          message:
            'Repositories write SQL as named statements (statement() and runStatement(), src/database/statement.ts) or with the query builder.',
        },
        {
          selector:
            'MemberExpression[property.name=/^(master|prepareHydratedValue|preparePersistentValue|setEntityValue|getEntityValue)$/]',
          message: 'A TypeORM internal: use its public API (query builder, repository, query runner) or a named statement.',
        },
      ],
    },
  },
  {
    // The tests read JSON answers as `any` on purpose: asserting on what came back is their job.
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Table-driven tests give every case the same async signature, whether it awaits or not.
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['**/*.{js,mjs,cjs}'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    // jest's transformer hooks are CommonJS modules.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs', 'jest.*.js'],
    languageOptions: { globals: { process: 'readonly', globalThis: 'readonly', console: 'readonly' } },
  },
  prettier,
);
