/** Two jest projects: `unit` (beside the code, no I/O) and `integration` (test/ folders, real FerretDB over PostgreSQL). */
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const common = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{gateway,services/*,packages/*,deploy}/src/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{gateway,services/*,packages/*,deploy}/test/**/*.test.ts'],
      globalSetup: '<rootDir>/packages/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/packages/testing/src/global-teardown.ts',
      testTimeout: 60000,
    },
  ],
};
