// Lint gate (issue 22): errors only, no stylistic rules. `npm run lint`; .ci/run runs it with the
// typecheck before the tests. TypeScript files are linted with type information (the rules below
// that catch lost promises need it); the staff app and guest pages (plain browser ES modules, no
// build step) with ESLint's own recommended set.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'release/', 'coverage/', 'data/', 'bench/results/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Bugs: a promise nobody awaits loses its error (an unhandled rejection) or its ordering.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      // Stylistic (and wrong where a cleanup registered first must see a binding assigned later).
      'prefer-const': 'off',
      // The tree's convention for a parameter or binding kept only for its position: a leading `_`.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Migrations take `Kysely<any>` as Kysely's migration guide does (a migration must not depend on
    // today's table types); tests read untyped JSON bodies.
    files: ['server/db/migrations/**/*.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['app/ui/**/*.js', 'app/guest/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    files: ['eslint.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },
);
