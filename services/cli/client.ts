import { requiredString, type CommandSpec } from './command.js';

export const clientCommands: CommandSpec[] = [
  {
    path: ['client', 'create'],
    summary: 'Create an API client (client_credentials grant) owned by a user; prints the secret once.',
    details: 'The client acts as its owner: its tokens cover the owner\'s companies (default company unless company_id is sent).',
    options: {
      email: { type: 'string', placeholder: 'email', description: 'E-mail address of the owning user.', required: true },
      name: { type: 'string', placeholder: 'name', description: 'Name of the client, 1 to 255 characters.', required: true },
    },
    examples: [
      'ticketing client create --email ann@example.com --name shop',
      'curl -s -X POST http://localhost:8080/auth/tokens -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials',
    ],
    async run(context, values) {
      const owner = await context.userByEmail(requiredString(values, 'email'));
      const { service } = await context.auth();
      const client = await service.createApiClient(owner.guid, requiredString(values, 'name'));
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
