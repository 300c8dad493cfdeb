import { optionalString, requiredString, type CommandSpec } from './command.js';

export const tokenCommands: CommandSpec[] = [
  {
    path: ['token', 'issue'],
    summary: 'Issue an access token for a user (a real session, revocable; no refresh token).',
    details: 'Prints only the access token (use --json for expiry and companies). It expires after ACCESS_TOKEN_TTL_SECONDS.',
    options: {
      email: { type: 'string', placeholder: 'email', description: 'E-mail address of the user.', required: true },
      company: {
        type: 'string',
        placeholder: 'guid|list|*',
        description: "Companies the token covers: a GUID, a comma list, * for all the user's, or none (default: the default company).",
      },
    },
    examples: ['TOKEN=$(ticketing token issue --email ann@example.com)', "ticketing token issue --email ann@example.com --company '*' --json"],
    async run(context, values) {
      const user = await context.userByEmail(requiredString(values, 'email'));
      const { service } = await context.auth();
      const token = await service.issueTokenForUser(user.guid, optionalString(values, 'company') ?? '');
      return {
        json: {
          token_type: token.token_type,
          access_token: token.access_token,
          expires_in: token.expires_in,
          user_id: user.guid,
          companies: token.info?.companies ?? [],
        },
        text: token.access_token,
      };
    },
  },
];
