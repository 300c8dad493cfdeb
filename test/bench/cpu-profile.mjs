// Preloaded (NODE_OPTIONS=--import) into each stack process by the bench with BENCH_CPU_PROF:
// node refuses --cpu-prof in NODE_OPTIONS, so the profiler is started through the inspector
// and the profile written at exit as <dir>/<pid>.cpuprofile (Chrome DevTools, speedscope).
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // The in-process session answers synchronously, so this works inside 'exit'.
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
