// ESLint (flat config) with typescript-eslint's type-aware rules; formatting is Prettier's
// (eslint-config-prettier turns off the rules it owns). `npm run lint` runs both.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.data/', 'bench/results/', 'test-artifacts/', 'sdk/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json', './bench/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
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
