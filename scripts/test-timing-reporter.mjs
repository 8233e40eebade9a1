// A vitest reporter (issue 45): each test file's whole cost, written to
// test-artifacts/timing/<name>.json for scripts/test-timing.mjs to rank. Vitest's own JSON
// reporter spans only the first test's start to the last test's end, which leaves out the import
// and the beforeAll hooks where most files start their gateways; this one adds them back.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export default class TestTimingReporter {
  /**
   * @param {{ name?: string }} [options] the report's name: one file per configuration (vitest,
   * watchdog, agents); TEST_TIMING_NAME overrides it for a run of part of a configuration (browser).
   */
  constructor(options = {}) {
    this.name = process.env.TEST_TIMING_NAME || options.name || 'vitest';
    this.started = Date.now();
  }

  onInit(vitest) {
    this.root = vitest.config.root;
    this.started = Date.now();
  }

  onTestRunEnd(testModules) {
    const files = testModules.map((testModule) => {
      const d = testModule.diagnostic();
      const tests = [...testModule.children.allTests()];
      return {
        file: relative(this.root, testModule.moduleId),
        state: testModule.state(),
        tests: tests.length,
        failed: tests.filter((test) => test.result().state === 'failed').length,
        // Worker start, import of the file and its modules, then hooks and tests.
        ms: Math.round(d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration),
        importMs: Math.round(d.collectDuration),
        testsMs: Math.round(d.duration),
        worker: d.concurrencyId,
      };
    });
    const path = join(this.root, 'test-artifacts', 'timing', `${this.name}.json`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify({ name: this.name, wallMs: Date.now() - this.started, files }, null, 1)}\n`);
  }
}
