import { requestedTokenCompanies } from '../auth/domain/company-scope.js';
import { CliError, optionalString, requiredString, type CommandSpec } from './command.js';

export const clientCommands: CommandSpec[] = [
  {
    path: ['client', 'create'],
    summary: 'Create an API client (client_credentials grant) owned by a user; prints the secret once.',
    details:
      'The client acts as its owner, limited to the companies named with --company (default: the owner\'s default company); its tokens never cover more.',
    options: {
      email: { type: 'string', placeholder: 'email', description: 'E-mail address of the owning user.', required: true },
      name: { type: 'string', placeholder: 'name', description: 'Name of the client, 1 to 255 characters.', required: true },
      company: { type: 'string', placeholder: 'guid|list|*', description: 'Companies the client may act for: a GUID, a comma list, or * for all of the owner\'s.' },
    },
    examples: [
      'ticketing client create --email ann@example.com --name shop',
      'curl -s -X POST http://localhost:8080/auth/tokens -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials',
    ],
    async run(context, values) {
      const owner = await context.userByEmail(requiredString(values, 'email'));
      const { service, store } = await context.auth();
      const scope = requestedTokenCompanies(optionalString(values, 'company') ?? '', await store.companyIdsOf(owner.guid), owner.default_company_id);
      if (scope.refused.length) throw new CliError(`--company names companies ${owner.email} does not belong to: ${scope.refused.join(', ')}`);
      const client = await service.createApiClientForUser(owner.guid, scope.companies, requiredString(values, 'name'));
      return {
        json: { ...client, user_id: owner.guid },
        text: [
          `Created API client "${client.name}" for ${owner.email}.`,
          `client_id:     ${client.client_id}`,
          `client_secret: ${client.client_secret}`,
          'The secret is shown only now: store it safely.',
        ].join('\n'),
      };
    },
  },
];
