/** Two jest projects: `unit` (beside the code, no I/O) and `integration` (test/ folders, real FerretDB over PostgreSQL). */
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
// var/ holds build output (var/images: image bundles with the packages' own package.json names), never tests or modules.
const common = {
  transform,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  modulePathIgnorePatterns: ['<rootDir>/var/'],
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{gateway,gateway/console,services/*,packages/*,deploy}/src/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{gateway,gateway/console,services/*,packages/*,deploy}/test/**/*.test.ts'],
      globalSetup: '<rootDir>/packages/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/packages/testing/src/global-teardown.ts',
      testTimeout: 60000,
    },
  ],
};
