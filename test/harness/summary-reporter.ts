import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `N passed, N failed, N skipped`, after Vitest's own report, so
 * CI reads the counts the way it reads any runner's, and the Node version the tests ran on (the
 * project's own, from the npm registry's `node` package: package.json's engines).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      const failedBefore = counts.failed;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
      // A file that failed outside its tests (an import, a beforeAll: a missing engine, say) has its
      // tests skipped; it still counts as a failure, never as skipped work alone.
      if (testModule.state() === 'failed' && counts.failed === failedBefore) counts.failed += 1;
    }
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
    process.stdout.write(`ran on Node ${process.version} (${process.execPath})\n`);
  }
}
