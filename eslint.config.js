// ESLint with typescript-eslint's type-aware rules over the whole project (formatting is Prettier's).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // tmp/: the checkout's scratch (gitignored), where bench/README.md has another checkout's sources unpacked
  {
    ignores: [
      'node_modules/',
      'reports/',
      'dist/',
      '.conformance/',
      'tmp/',
      'src/contract/*.gen.ts',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // JSON from the wire, YAML and JSON.parse are `any` until a contract validator (or the harness's own
      // reader of an open shape) has checked them; these rules would flag every read after such a check.
      // An `any` written out is still refused (no-explicit-any) unless a comment on its line says why.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // tests read answers as the untyped JSON a client gets, and hand async callbacks to APIs that take them
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/require-await': 'off' },
  },
);
