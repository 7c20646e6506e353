import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';

const n8nRecommended = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
  // tmp/ holds ignored work folders (e2e:n8n installs a whole n8n there).
  // dashboard/resources/ is the widget as Vite built it.
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'coverage/**', 'tmp/**', 'dashboard/resources/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly', process: 'readonly', __dirname: 'readonly', console: 'readonly' } },
  },
  {
    // Plain .js files here are CommonJS scripts run by node directly: require() is their import.
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // n8n's community-node rules, for the n8n nodes, their credential and the package manifest.
  {
    files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
    plugins: n8nRecommended.plugins,
    rules: {
      ...n8nRecommended.rules,
      // The package is for self-hosted n8n (see the README): it needs undici, ws and werift at run
      // time (HTTP with proxies, WebSocket signaling, WebRTC), which n8n Cloud's verification forbids.
      // Self-hosted n8n installs "dependencies" (with install scripts off; none of ours needs one).
      '@n8n/community-nodes/no-runtime-dependencies': 'off',
    },
  },
  {
    files: ['package.json'],
    rules: {
      // The manifest is parsed as one JSON expression: not a statement a program would have.
      '@typescript-eslint/no-unused-expressions': 'off',
      // Shown, not failing, until the maintainers decide: the author and homepage are theirs to
      // fill in before publishing, and the one override pins a resolver of the test runner (npm
      // ignores the overrides of an installed package, so users never see it).
      '@n8n/community-nodes/valid-author': 'warn',
      '@n8n/community-nodes/no-overrides-field': 'warn',
    },
  },
);
