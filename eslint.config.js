// Lint: ESLint's and typescript-eslint's recommended rules over all TypeScript in the repository.
// Not the type-aware set: it took four times as long (about a minute and 2 GB here) and mostly
// flags `any` response bodies in tests, while `npm run typecheck` already runs tsc on everything.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', 'docs/.vitepress/cache/**'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a parameter or binding kept for its position or its shape.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Tests read JSON responses as `any` (test/helpers/contract.ts checks each against the OpenAPI
    // document). The dashboard's API client is typed by the server's wire types (dashboard/src/api-types.ts).
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
