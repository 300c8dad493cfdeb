import { optionalString, requiredString, UsageError, type CommandSpec } from './command.js';

export const userCommands: CommandSpec[] = [
  {
    path: ['user', 'create'],
    summary: 'Create a user and its first company (works even when SIGNUP_ENABLED=false).',
    details: 'The company (named --company-name, else the user name) becomes the default company of the user.',
    options: {
      email: { type: 'string', placeholder: 'email', description: 'E-mail address (the login name).', required: true },
      name: { type: 'string', placeholder: 'name', description: 'Display name.', required: true },
      password: { type: 'string', placeholder: 'password', description: 'Password, at least 8 characters (visible in the process list: prefer --password-stdin).' },
      'password-stdin': { type: 'boolean', description: 'Read the password from standard input (one line).' },
      'company-name': { type: 'string', placeholder: 'name', description: 'Name of the first company (default: the user name).' },
      phone: { type: 'string', placeholder: 'phone', description: 'Phone number.' },
    },
    oneOf: [['password', 'password-stdin']],
    examples: [
      "ticketing user create --email ann@example.com --name Ann --company-name 'Ann Events' --password 'correct horse'",
      "printf '%s\\n' \"$PASSWORD\" | ticketing user create --email ann@example.com --name Ann --password-stdin",
    ],
    async run(context, values) {
      const password = await passwordFrom(values.password, values['password-stdin'] === true);
      const { service } = await context.auth();
      const user = await service.signUp({
        email: requiredString(values, 'email'),
        name: requiredString(values, 'name'),
        password,
        company_name: optionalString(values, 'company-name'),
        phone: optionalString(values, 'phone'),
      });
      return {
        json: user,
        text: `Created user ${user.guid} <${user.email}>, default company ${user.default_company_id}.`,
      };
    },
  },
];

/** The password of --password, or one line of standard input for --password-stdin (main checks that exactly one is given). */
async function passwordFrom(flag: string | boolean | undefined, fromStdin: boolean): Promise<string> {
  if (!fromStdin) return String(flag);
  if (process.stdin.isTTY) throw new UsageError('--password-stdin reads standard input; pipe the password in');
  let input = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) input += chunk;
  return input.replace(/\r?\n$/, '');
}
