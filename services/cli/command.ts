import type { RpcError } from '../../lib/grpc/errors.js';
import type { CliContext } from './context.js';

export const PROGRAM = 'ticketing';
/** The same program where `ticketing` is not installed: a checkout (no build needed) and the image. */
const INVOCATIONS = ['from a checkout: npm run -s cli -- <command> [options]', 'in the image: node dist/services/cli/main.js <command> [options]'];

/** Bad invocation: unknown command or option, missing or malformed value. Exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly helpFor?: CommandSpec,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command was understood but cannot be done: unknown user, duplicate e-mail, ... Exit code 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  /** Shown in usage: --email <email>. */
  placeholder?: string;
  required?: boolean;
}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface CommandResult {
  /** Printed with --json. */
  json: unknown;
  /** Printed otherwise. */
  text: string;
}

export interface CommandSpec {
  /** e.g. ['user', 'create']. */
  path: string[];
  summary: string;
  details?: string;
  options: Record<string, OptionSpec>;
  /** Options of which exactly one is required (e.g. --password or --password-stdin). */
  oneOf?: string[][];
  examples?: string[];
  /** Needs the configured session cache (Redis), not only the database. */
  withSessionCache?: boolean;
  run(context: CliContext, values: OptionValues): Promise<CommandResult>;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'Print the result as JSON.' },
  help: { type: 'boolean', description: 'Show this help.' },
};

export function commandName(command: CommandSpec): string {
  return `${PROGRAM} ${command.path.join(' ')}`;
}

export function commandUsage(command: CommandSpec): string {
  const flag = (name: string, spec: OptionSpec) => (spec.type === 'string' ? `--${name} <${spec.placeholder ?? 'value'}>` : `--${name}`);
  const synopsis = Object.entries(command.options)
    .map(([name, spec]) => (spec.required ? flag(name, spec) : `[${flag(name, spec)}]`))
    .join(' ');
  const all = { ...command.options, ...GLOBAL_OPTIONS };
  const width = Math.max(...Object.entries(all).map(([name, spec]) => flag(name, spec).length));
  const lines = [`Usage: ${commandName(command)}${synopsis ? ` ${synopsis}` : ''} [--json]`, '', command.summary];
  if (command.details) lines.push('', command.details);
  lines.push('', 'Options:');
  for (const [name, spec] of Object.entries(all)) {
    lines.push(`  ${flag(name, spec).padEnd(width)}  ${spec.description}${spec.required ? ' (required)' : ''}${name === 'help' ? ' Also -h.' : ''}`);
  }
  for (const group of command.oneOf ?? []) lines.push(`  One of ${group.map((n) => `--${n}`).join(' or ')} is required.`);
  if (command.examples?.length) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

export function programUsage(commands: CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    ...INVOCATIONS.map((line) => `   or ${line}`),
    '',
    'Administers a ticketing installation: the same environment (AUTH_DATABASE_URL, DATA_DIR,',
    'AUTH_SIGNING_KEY, REDIS_URL, ...) and databases as the auth service. Migrations run first.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    `Run '${PROGRAM} <command> --help' (from a checkout: 'npm run -s cli -- <command> --help') for the options of a command.`,
    'Every command takes --json.',
    'Exit codes: 0 done, 1 the command failed (unknown user, duplicate e-mail, database down, ...),',
    '2 usage or configuration error.',
  ].join('\n');
}

export function groupUsage(group: string, commands: CommandSpec[]): string {
  const members = commands.filter((c) => c.path[0] === group);
  const width = Math.max(...members.map((c) => c.path.join(' ').length));
  return [
    `Usage: ${PROGRAM} ${group} <${members.map((c) => c.path[1]).join('|')}> [options]`,
    '',
    'Commands:',
    ...members.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    `Run '${PROGRAM} ${group} <command> --help' for its options.`,
  ].join('\n');
}

export function requiredString(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string') throw new UsageError(`missing required option --${name}`);
  return value;
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** The option that sets a field (company_name -> --company-name). */
export const optionName = (field: string): string => field.replaceAll('_', '-');

const GRPC_INVALID_ARGUMENT = 3;

/** Domain errors of the auth service, as one readable line. */
export function describeRpcError(err: Pick<RpcError, 'code' | 'message' | 'details'>): string {
  const violations = err.details.fieldViolations ?? [];
  if (err.code === GRPC_INVALID_ARGUMENT && violations.length) {
    return `invalid values: ${violations.map((v) => `--${optionName(v.field)} ${v.description}`).join('; ')}`;
  }
  return err.message.replace(/\.$/, '');
}
