/** Jest projects: unit (no Redis), integration (Lua on a real server), e2e (Nest apps), faults, pack (the npm tarball). */
const common = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  rootDir: __dirname,
  testTimeout: 60_000,
  moduleFileExtensions: ['ts', 'js', 'json'],
  // The sample imports the public entry by its package name; tests run it against the sources.
  moduleNameMapper: { '^@echomq/nestjs$': '<rootDir>/lib/index.ts', '^@echomq/nestjs/(metrics|health|dashboard)$': '<rootDir>/lib/$1/index.ts' },
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
};

module.exports = {
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
    { ...common, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.spec.ts'] },
    { ...common, displayName: 'pack', testMatch: ['<rootDir>/test/pack/**/*.spec.ts'] },
  ],
};
