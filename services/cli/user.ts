import { userJson } from '../../gateway/json.js';
import { fieldNames, type FieldDef } from '../../lib/fields/kinds.js';
import { SIGN_UP_FIELDS } from '../../lib/fields/user.js';
import type { SignUpRequest } from '../../lib/gen/auth/v1/auth.js';
import { optionalString, optionName, requiredString, UsageError, type CommandSpec, type OptionSpec, type OptionValues } from './command.js';

const SIGN_UP_ENTRIES = fieldNames(SIGN_UP_FIELDS).map((field): [string, FieldDef] => [field, SIGN_UP_FIELDS[field]]);
/** The write-only sign-up field (the password): also readable from standard input, which keeps it out of the process list. */
const SECRET = optionName(SIGN_UP_ENTRIES.find(([, def]) => def.writeOnly)![0]);
const SECRET_STDIN = `${SECRET}-stdin`;

/** One option per sign-up field (lib/fields/user.ts), named after it; the secret one two ways. */
function signUpOptions(): Record<string, OptionSpec> {
  const options: Record<string, OptionSpec> = {};
  for (const [field, def] of SIGN_UP_ENTRIES) {
    const name = optionName(field);
    if (def.writeOnly) {
      options[name] = { type: 'string', placeholder: name, description: `${def.description} Visible in the process list: prefer --${SECRET_STDIN}.` };
      options[SECRET_STDIN] = { type: 'boolean', description: `Read the ${name} from standard input (one line).` };
    } else {
      options[name] = { type: 'string', placeholder: field.split('_').at(-1), description: def.description, required: def.required };
    }
  }
  return options;
}

/** The options as a sign-up request; the secret comes from the flag or standard input. */
async function signUpRequest(values: OptionValues): Promise<SignUpRequest> {
  const request: Record<string, string | undefined> = {};
  for (const [field, def] of SIGN_UP_ENTRIES) {
    const name = optionName(field);
    if (def.writeOnly) request[field] = await secretFrom(values[name], values[SECRET_STDIN] === true);
    else request[field] = def.required ? requiredString(values, name) : optionalString(values, name);
  }
  return request as unknown as SignUpRequest;
}

export const userCommands: CommandSpec[] = [
  {
    path: ['user', 'create'],
    summary: 'Create a user and its first company (works even when SIGNUP_ENABLED=false).',
    details: 'The company (named --company-name, else the user name) becomes the default company of the user.',
    options: signUpOptions(),
    oneOf: [[SECRET, SECRET_STDIN]],
    examples: [
      "ticketing user create --email ann@example.com --name Ann --company-name 'Ann Events' --password 'correct horse'",
      "printf '%s\\n' \"$PASSWORD\" | ticketing user create --email ann@example.com --name Ann --password-stdin",
    ],
    async run(context, values) {
      const request = await signUpRequest(values);
      const { service } = await context.auth();
      const user = await service.signUp(request);
      return {
        json: userJson(user),
        text: `Created user ${user.guid} <${user.email}>, default company ${user.default_company_id}.`,
      };
    },
  },
];

/** The secret of its flag, or one line of standard input (main checks that exactly one is given). */
async function secretFrom(flag: string | boolean | undefined, fromStdin: boolean): Promise<string> {
  if (!fromStdin) return String(flag);
  if (process.stdin.isTTY) throw new UsageError(`--${SECRET_STDIN} reads standard input; pipe the ${SECRET} in`);
  let input = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) input += chunk;
  return input.replace(/\r?\n$/, '');
}
