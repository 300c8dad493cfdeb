/** What else commonly listens on one of our default ports, for the hint of a port in use. */
const KNOWN_DEFAULTS: Record<number, string> = { 9464: 'the default port of Prometheus exporters such as OpenTelemetry\'s' };

/**
 * A failed listen in our words: a port in use names the setting that chose it (PORT,
 * AUTH_GRPC_PORT, TICKET_GRPC_PORT, METRICS_PORT), so the operator knows what to change.
 * Node says EADDRINUSE in the error's code; grpc-js only inside its message. Any other
 * failure is returned as it is.
 */
export function listenFailure(err: unknown, setting: string, host: string, port: number): unknown {
  const text = err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}` : String(err);
  if (!/\bEADDRINUSE\b/.test(text)) return err;
  const known = KNOWN_DEFAULTS[port] ? `, ${port} is also ${KNOWN_DEFAULTS[port]}` : '';
  const off = setting === 'METRICS_PORT' ? ', 0 for any free port, or off' : '';
  return new Error(`port ${port} on ${host} is already in use (${setting}=${port}${known}): stop the other process or set ${setting} to a free port${off}`);
}
