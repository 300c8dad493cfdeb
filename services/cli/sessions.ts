import { CliError, requiredString, type CommandSpec } from './command.js';

const SETTLE_MS = 5000;

export const sessionCommands: CommandSpec[] = [
  {
    path: ['sessions', 'revoke'],
    summary: "Revoke every session of a user: all its access and refresh tokens stop working.",
    details: [
      'With Redis (REDIS_URL) the revocation reaches the session cache at once; the command fails (exit 1)',
      'when Redis cannot be reached. With the in-process cache (no REDIS_URL), a running auth service may',
      'accept a token it had already cached for up to SESSION_CACHE_TTL_SECONDS.',
    ].join('\n'),
    options: {
      email: { type: 'string', placeholder: 'email', description: 'E-mail address of the user.', required: true },
    },
    withSessionCache: true,
    examples: ['ticketing sessions revoke --email ann@example.com'],
    async run(context, values) {
      const user = await context.userByEmail(requiredString(values, 'email'));
      const { service, cache } = await context.auth();
      // Do not revoke half-way: make sure the cache can take the revocations first.
      if (!(await cache.settle(SETTLE_MS))) throw new CliError('the session cache (REDIS_URL) cannot be reached; nothing was revoked');
      const revoked = await service.revokeSessionsOfUser(user.guid);
      if (!(await cache.settle(SETTLE_MS))) {
        throw new CliError(
          `revoked ${revoked} session(s) in the database, but the session cache could not be updated: ` +
            `their tokens may be accepted for up to ${context.config.SESSION_CACHE_TTL_SECONDS} s (until the cache entries expire)`,
        );
      }
      return { json: { user_id: user.guid, revoked }, text: `Revoked ${revoked} session(s) of ${user.email}.` };
    },
  },
];
