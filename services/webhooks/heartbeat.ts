import { statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The worker process's liveness for the container health check: touched after every round that reached the database. */
const FILE = path.join(tmpdir(), 'ticketing-webhooks.heartbeat');

export function beat(): void {
  try {
    writeFileSync(FILE, String(Date.now()));
  } catch {
    // A read-only /tmp only costs the health check.
  }
}

/** How long ago the last round finished; undefined when none has. */
export function lastBeatAgeMs(): number | undefined {
  try {
    return Date.now() - statSync(FILE).mtimeMs;
  } catch {
    return undefined;
  }
}
