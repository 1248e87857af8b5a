import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts', '**/*.mts', '**/*.cts'];
// Specs and the test kits beside them (any `testing/` folder of an app) may use the infra harness.
const SPEC_FILES = ['**/*.spec.ts', 'apps/*/src/**/testing/**/*.ts'];

/** Apps never import apps; libs import only libs; the test harness only from specs. */
const boundaries = (allowTestingFrom) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      {
        sourceTag: 'type:app',
        onlyDependOnLibsWithTags: ['type:lib', ...(allowTestingFrom ? ['type:testing'] : [])],
      },
      {
        sourceTag: 'type:lib',
        onlyDependOnLibsWithTags: ['type:lib', ...(allowTestingFrom ? ['type:testing'] : [])],
      },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
    ],
  },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'examples/**', '.tools/**', '.headspace/**', '.nx/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: TS_FILES,
    plugins: { '@nx': nx },
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(false),
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: SPEC_FILES,
    rules: { '@nx/enforce-module-boundaries': boundaries(true) },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
);
