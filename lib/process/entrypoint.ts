import { ConfigError, loadConfig, type Config, type ProcessName } from '../config.js';

/** The validated configuration, or the list of problems on stderr and exit code 2. */
export function loadConfigOrExit(processName: ProcessName, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env, processName);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
}

/** Where a server bound to BIND_HOST can be reached from this host (for log lines and health checks). */
export function reachableHost(config: Pick<Config, 'BIND_HOST'>): string {
  return config.BIND_HOST === '0.0.0.0' || config.BIND_HOST === '::' ? '127.0.0.1' : config.BIND_HOST;
}

/** Startup failed (database unreachable, port taken, ...): one line on stderr, exit 1, no stack trace. */
export function exitOnStartFailure(what: string): (err: unknown) => never {
  return (err: unknown) => {
    console.error(`${what} failed to start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  };
}

