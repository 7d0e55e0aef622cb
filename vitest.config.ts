import { defineConfig } from 'vitest/config';

/**
 * What runs on the stack in containers (STACK=testcontainers, issue 17): the backbone's tests that
 * speak to the stack only through its ports (not the ones of the local stack's processes, its
 * model part or in-process ClickHouse), and one end-to-end test per surface.
 */
const onContainers = [
  'test/int/backbone/producer.int.test.ts',
  'test/int/backbone/projections.int.test.ts',
  'test/int/backbone/registry.int.test.ts',
  'test/int/backbone/dead-letters.int.test.ts',
  'test/int/backbone/keys.int.test.ts',
  'test/int/backbone/postgres-pool.int.test.ts',
  'test/int/backbone/clickhouse-escaping.int.test.ts',
  'test/e2e/otlp-exporters.e2e.test.ts',
  'test/int/inference/answers.int.test.ts',
  'test/e2e/sandbox-package.e2e.test.ts',
  'test/e2e/dashboard.e2e.test.ts',
];

// Unit tests are pure and fast; integration and end-to-end tests share one real local stack of
// their own (not `npm start`'s: test/harness/providers/local.ts), started (or reused) once by the
// global setup, and run one file at a time on 2 cores. With
// STACK=testcontainers the stack is in containers instead, for the tests in `onContainers`.
export default defineConfig({
  test: {
    // The platform's JSON logs would bury the report; warnings and errors still show.
    env: { ORRERY_LOG_LEVEL: process.env.ORRERY_LOG_LEVEL ?? 'warn' },
    reporters: ['default', './test/harness/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.unit.test.ts', 'packages/*/test/**/*.unit.test.ts'],
        },
      },
      {
        test: {
          name: 'int',
          include:
            process.env.STACK === 'testcontainers'
              ? onContainers
              : [
                  'test/int/**/*.int.test.ts',
                  'test/e2e/**/*.e2e.test.ts',
                  'packages/*/test/**/*.int.test.ts',
                ],
          globalSetup: ['test/harness/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
