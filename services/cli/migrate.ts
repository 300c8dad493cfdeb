import type { CommandSpec } from './command.js';

export const migrateCommands: CommandSpec[] = [
  {
    path: ['migrate'],
    summary: 'Run the auth and ticket database migrations (idempotent).',
    details: 'Applies every pending migration of both databases (AUTH_DATABASE_URL, TICKET_DATABASE_URL, or the SQLite files in DATA_DIR).',
    options: {},
    examples: ['ticketing migrate'],
    async run(context) {
      const { runMigrations } = await import('../migrate.js');
      const result = await runMigrations(context.config, context.logger);
      const line = (name: string, applied: string[]) =>
        `${name}: ${applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'already up to date'}`;
      return { json: { applied: result }, text: [line('auth', result.auth), line('ticket', result.ticket)].join('\n') };
    },
  },
];
