// `npm run lint` (scripts/lint.sh): typescript-eslint's recommended rules on the
// TypeScript sources, and formatting rules (ESLint Stylistic) matched to the
// tree's style, on TypeScript and the plain-JS tests, benches and scripts.
// `npm run format` applies the formatting rules (eslint --fix).
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

const formatting = {
  plugins: { '@stylistic': stylistic },
  rules: {
    '@stylistic/indent': ['error', 2, { SwitchCase: 1, ignoredNodes: ['TemplateLiteral *', 'ConditionalExpression', 'TSUnionType *', 'TSIntersectionType *'] }],
    '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
    '@stylistic/semi': ['error', 'always'],
    '@stylistic/comma-dangle': ['error', 'always-multiline'],
    '@stylistic/no-trailing-spaces': 'error',
    '@stylistic/eol-last': 'error',
    '@stylistic/no-tabs': 'error',
    '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxBOF: 0, maxEOF: 0 }],
    '@stylistic/keyword-spacing': 'error',
    '@stylistic/space-infix-ops': 'error',
    '@stylistic/comma-spacing': 'error',
    '@stylistic/key-spacing': 'error',
    '@stylistic/arrow-spacing': 'error',
    '@stylistic/space-before-blocks': 'error',
    '@stylistic/object-curly-spacing': ['error', 'always'],
    '@stylistic/array-bracket-spacing': ['error', 'never'],
  },
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/build/**', '.cache/**', 'models/**', '**/*.d.ts', '**/generated/**'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    // The loader and app hold plugins whatever their option types.
    files: ['packages/core/src/app.ts', 'packages/core/src/loader.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  { files: ['**/*.ts', '**/*.js', '**/*.mjs', '**/*.cjs'], ...formatting },
  {
    // The bin's second line is shell as well as JavaScript: its quotes and its missing semicolon are the shell's.
    files: ['packages/cli/bin/sawt.js'],
    rules: { '@stylistic/quotes': 'off', '@stylistic/semi': 'off' },
  },
);
