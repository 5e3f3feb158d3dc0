/** Jest projects: unit (no Redis), integration (Lua on a real server), e2e (Nest apps), faults, pack (the npm tarball), ioredis6 (a subset again on ioredis 6). */
const common = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  rootDir: __dirname,
  testTimeout: 60_000,
  moduleFileExtensions: ['ts', 'js', 'json'],
  // The sample imports the public entry by its package name; tests run it against the sources.
  moduleNameMapper: { '^@echomq/nestjs$': '<rootDir>/lib/index.ts', '^@echomq/nestjs/(metrics|health|dashboard|testing)$': '<rootDir>/lib/$1/index.ts' },
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
};

/**
 * Suites that run a second time on ioredis 6 (the `ioredis6` devDependency, an npm alias), so both
 * majors of the peer range are tested by every `npm test`: the wire paths (scripts, blocking waits,
 * waitFor's subscriber, consumers, the queue handles, clients passed in). About a minute.
 */
const IOREDIS6_SUITES = [
  'test/integration/submit.spec.ts',
  'test/integration/rotation.spec.ts',
  'test/integration/jobs-and-waits.spec.ts',
  'test/e2e/consumers.e2e-spec.ts',
  'test/e2e/queue-handles.e2e-spec.ts',
  'test/e2e/connection-clients.e2e-spec.ts',
];

module.exports = {
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
    { ...common, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.spec.ts'] },
    { ...common, displayName: 'pack', testMatch: ['<rootDir>/test/pack/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'ioredis6',
      testMatch: IOREDIS6_SUITES.map((f) => `<rootDir>/${f}`),
      moduleNameMapper: { ...common.moduleNameMapper, '^ioredis$': '<rootDir>/node_modules/ioredis6' },
      globals: { EMQ_IOREDIS_MAJOR: 6 },
    },
  ],
};
