#!/usr/bin/env node
/**
 * The admin CLI: `npm run -s cli -- <command> ...`, or `ticketing <command> ...` once built
 * (package.json "bin"), or `node dist/services/cli/main.js ...` in the image.
 * Exit codes: 0 done, 1 the command failed, 2 usage or configuration error. No stack traces.
 */
import { parseArgs } from 'node:util';
import { isMain } from '../../lib/process/is-main.js';
import { clientCommands } from './client.js';
import {
  CliError,
  commandName,
  commandUsage,
  describeRpcError,
  GLOBAL_OPTIONS,
  groupUsage,
  programUsage,
  PROGRAM,
  UsageError,
  type CommandSpec,
  type OptionValues,
} from './command.js';
import { companyCommands } from './company.js';
import type { CliContext } from './context.js';
import { migrateCommands } from './migrate.js';
import { sessionCommands } from './sessions.js';
import { tokenCommands } from './token.js';
import { userCommands } from './user.js';

export const COMMANDS: CommandSpec[] = [...migrateCommands, ...userCommands, ...companyCommands, ...clientCommands, ...tokenCommands, ...sessionCommands];

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const processIo: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** Runs one command line; returns the exit code. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = processIo): Promise<number> {
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  const json = argv.includes('--json');
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) break;
    words.push(arg);
  }

  if (words[0] === 'help') return help(words.slice(1), io);
  const command = COMMANDS.find((c) => c.path.every((part, i) => words[i] === part));
  if (!command) {
    if (words.length === 0) {
      if (wantsHelp) return help([], io);
      return usageError(argv.length ? `unknown option ${argv[0]}` : 'no command given', programUsage(COMMANDS), io, json);
    }
    const group = words[0]!;
    if (COMMANDS.some((c) => c.path.length > 1 && c.path[0] === group)) {
      if (words.length === 1 && wantsHelp) return help([group], io);
      const message = words.length === 1 ? `${PROGRAM} ${group} needs a command` : `unknown command '${words.slice(0, 2).join(' ')}'`;
      return usageError(message, groupUsage(group, COMMANDS), io, json);
    }
    return usageError(`unknown command '${group}'`, programUsage(COMMANDS), io, json);
  }
  if (wantsHelp) {
    io.out(commandUsage(command));
    return 0;
  }

  let context: CliContext | undefined;
  try {
    const values = parseOptions(command, argv.slice(command.path.length));
    // Loaded only to run a command: --help and usage errors stay fast.
    const { loadConfig } = await import('../../lib/config.js');
    const { CliContext } = await import('./context.js');
    const config = loadConfig(env, 'cli');
    context = new CliContext(config, { withSessionCache: command.withSessionCache });
    const result = await command.run(context, values);
    io.out(values.json ? JSON.stringify(result.json, null, 2) : result.text);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, `Run '${commandName(command)} --help' for usage.`, io, json);
    if (err instanceof CliError) return failure(`error: ${err.message}`, 1, io, json);
    const { ConfigError } = await import('../../lib/config.js');
    if (err instanceof ConfigError) return failure(err.message, 2, io, json);
    const { RpcError } = await import('../../lib/grpc/errors.js');
    if (err instanceof RpcError) return failure(`error: ${describeRpcError(err)}`, 1, io, json);
    return failure(`error: ${unexpected(err)}`, 1, io, json);
  } finally {
    await context?.close();
  }
}

function parseOptions(command: CommandSpec, args: string[]): OptionValues {
  const options = Object.fromEntries(Object.entries({ ...command.options, ...GLOBAL_OPTIONS }).map(([name, spec]) => [name, { type: spec.type }]));
  let values: OptionValues;
  try {
    ({ values } = parseArgs({ args, options, strict: true, allowPositionals: false }) as { values: OptionValues });
  } catch (err) {
    throw new UsageError(parseArgsMessage(err));
  }
  for (const [name, spec] of Object.entries(command.options)) {
    const value = values[name];
    if (spec.required && value === undefined) throw new UsageError(`missing required option --${name}`);
    if (typeof value === 'string' && value.trim() === '') throw new UsageError(`--${name} must not be empty`);
  }
  for (const group of command.oneOf ?? []) {
    const given = group.filter((name) => values[name] !== undefined && values[name] !== false);
    if (given.length === 0) throw new UsageError(`missing required option ${group.map((n) => `--${n}`).join(' or ')}`);
    if (given.length > 1) throw new UsageError(`give only one of ${group.map((n) => `--${n}`).join(', ')}`);
  }
  return values;
}

/** node:util parseArgs messages, without their advice to use "--" (which no command takes). */
function parseArgsMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const positional = /Unexpected argument '([^']+)'/.exec(message);
  if (positional) return `unexpected argument '${positional[1]}'`;
  const missing = /Option '(?:-\w, )?(--[\w-]+) <value>' argument missing/.exec(message);
  if (missing) return `option ${missing[1]} needs a value`;
  return message.split('\n')[0]!.replace(/\. To specify.*$/, '');
}

function help(words: string[], io: Io): number {
  const command = COMMANDS.find((c) => c.path.length === words.length && c.path.every((part, i) => words[i] === part));
  if (command) io.out(commandUsage(command));
  else if (words.length === 1 && COMMANDS.some((c) => c.path[0] === words[0] && c.path.length > 1)) io.out(groupUsage(words[0]!, COMMANDS));
  else if (words.length === 0) io.out(programUsage(COMMANDS));
  else return usageError(`unknown command '${words.join(' ')}'`, programUsage(COMMANDS), io, false);
  return 0;
}

function usageError(message: string, usage: string, io: Io, json: boolean): number {
  if (json) io.err(JSON.stringify({ error: message, exit_code: 2 }));
  else io.err(`error: ${message}\n\n${usage}`);
  return 2;
}

function failure(message: string, code: number, io: Io, json: boolean): number {
  io.err(json ? JSON.stringify({ error: message.replace(/^error: /, ''), exit_code: code }) : message);
  return code;
}

/** Anything else (database unreachable, ...): the message only, never a stack trace. */
function unexpected(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e?.message ?? String(err);
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ENOTFOUND' || e?.code === 'ETIMEDOUT') return `cannot reach the database (${e.code}): ${message}`;
  return message;
}

if (isMain(import.meta.url)) {
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
  // Pools and the Redis client are closed; this only guards against a handle left open.
  setTimeout(() => process.exit(code), 2000).unref();
}
