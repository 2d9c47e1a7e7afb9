// ESLint for the SDK, its tests, the benchmarks and the chat page: the
// recommended rules, and the house rules a reviewer would otherwise repeat.
import js from '@eslint/js';
import globals from 'globals';

export default [
  // Vendored copies are the packages' files byte for byte (scripts/vendor.mjs).
  { ignores: ['node_modules/', 'examples/chat/vendor/'] },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      // The SDK runs in browsers and in Node; tests and benches in Node, the chat page in a browser.
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-unused-vars': ['error', { ignoreRestSiblings: true, caughtErrors: 'none' }],
      'prefer-const': 'error',
      'no-var': 'error',
      // Private members are `#` members: an `_name` is not private, only hopeful.
      'no-restricted-syntax': [
        'error',
        { selector: 'MethodDefinition > .key[name=/^_/]', message: 'private methods are #methods, not _methods' },
        { selector: 'PropertyDefinition > .key[name=/^_/]', message: 'private fields are #fields, not _fields' },
        { selector: "MemberExpression[object.type='ThisExpression'] > Identifier.property[name=/^_/]", message: 'private fields are #fields, not _fields' },
      ],
    },
  },
];
