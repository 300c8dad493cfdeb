/**
 * A vitest reporter that prints, at the end of every run, how long each test file took, the
 * slowest first (docs/testing.md, "How long the suite takes"). Beside the default reporter, set
 * in vitest.config.ts. `TEST_DURATIONS_TOP` sets how many files are printed (default 25, `all`
 * for every file); `TEST_DURATIONS_FILE` also writes every file's figures there as JSON.
 *
 * Per file: `total`, what the file costs its worker: `import` (setting up the file, importing it and
 * its describe blocks) plus `tests` (its tests and hooks: a beforeAll starting a stack counts here).
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export interface FileDuration {
  project: string;
  file: string;
  state: string;
  totalMs: number;
  importMs: number;
  testsMs: number;
}

export default class DurationsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows: FileDuration[] = modules.map((module) => {
      const diagnostic = module.diagnostic();
      const importMs = diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.prepareDuration + diagnostic.environmentSetupDuration;
      return {
        project: module.project.name,
        file: module.relativeModuleId,
        state: module.state(),
        totalMs: Math.round(importMs + diagnostic.duration),
        importMs: Math.round(importMs),
        testsMs: Math.round(diagnostic.duration),
      };
    });
    rows.sort((a, b) => b.totalMs - a.totalMs);
    if (process.env.TEST_DURATIONS_FILE) writeFileSync(process.env.TEST_DURATIONS_FILE, `${JSON.stringify(rows, null, 1)}\n`);
    if (rows.length === 0) return;
    const top = process.env.TEST_DURATIONS_TOP === 'all' ? rows.length : Number(process.env.TEST_DURATIONS_TOP || 25);
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
    const width = Math.max(...rows.slice(0, top).map((row) => row.project.length + 1 + row.file.length));
    const lines = [`Slowest test files (${Math.min(top, rows.length)} of ${rows.length}; total = import + tests and hooks):`];
    for (const row of rows.slice(0, top)) {
      const name = `${row.project} ${row.file}`.padEnd(width);
      lines.push(`  ${name} ${seconds(row.totalMs)}  (import ${seconds(row.importMs).trim()}, tests ${seconds(row.testsMs).trim()})${row.state === 'passed' ? '' : ` ${row.state}`}`);
    }
    const byProject = new Map<string, { files: number; ms: number }>();
    for (const row of rows) {
      const sum = byProject.get(row.project) ?? { files: 0, ms: 0 };
      byProject.set(row.project, { files: sum.files + 1, ms: sum.ms + row.totalMs });
    }
    lines.push(`  all files, summed over the workers: ${[...byProject].map(([project, sum]) => `${project || '(root)'} ${sum.files} files ${seconds(sum.ms).trim()}`).join(', ')}`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
