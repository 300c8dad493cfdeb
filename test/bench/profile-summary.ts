/**
 * Text summary of .cpuprofile files (BENCH_CPU_PROF): self time by function and by where the
 * code lives (our code, a package, node internals, GC), for docs/PERFORMANCE.md.
 *
 *   tsx test/bench/profile-summary.ts <file.cpuprofile>...
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function place(url: string, name: string): string {
  if (name === '(garbage collector)' || name === '(idle)' || name === '(program)') return name;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:') || url === '') return 'node internals';
  return 'our code';
}

for (const file of process.argv.slice(2)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const where = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/perf-bench\//, '')}:${lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + dt);
    const p = place(url, functionName);
    where.set(p, (where.get(p) ?? 0) + dt);
  });
  const busy = total - (where.get('(idle)') ?? 0);
  const pct = (v: number) => `${((100 * v) / busy).toFixed(1)}%`;
  console.log(`\n${file}: ${(busy / 1e6).toFixed(1)} s busy of ${(total / 1e6).toFixed(1)} s`);
  for (const [k, v] of [...where].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${pct(v).padStart(6)}  ${k}`);
  console.log('  top functions (self):');
  for (const [k, v] of [...fn].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${pct(v).padStart(6)}  ${k}`);
}
