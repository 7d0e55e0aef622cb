import { defineConfig } from 'vitest/config';

// Unit tests are pure and fast; integration and end-to-end tests share one real local stack,
// started (or reused) once by the global setup, and run one file at a time on 2 cores.
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
          include: [
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
