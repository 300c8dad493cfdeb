import { companyJson } from '../../gateway/json.js';
import { isGuid } from '../../lib/ids.js';
import { nameProblem } from '../auth/domain/text-rules.js';
import { CliError, requiredString, UsageError, type CommandSpec } from './command.js';

export const companyCommands: CommandSpec[] = [
  {
    path: ['company', 'create'],
    summary: 'Create a company; its owner becomes a member.',
    details: 'Tokens issued before do not cover the new company; a new token does (e.g. with --company *).',
    options: {
      name: { type: 'string', placeholder: 'name', description: 'Company name, 1 to 255 characters.', required: true },
      owner: { type: 'string', placeholder: 'email', description: 'E-mail address of the user who becomes a member.', required: true },
    },
    examples: ["ticketing company create --name 'Second company' --owner ann@example.com"],
    async run(context, values) {
      const name = requiredString(values, 'name').trim();
      const problem = nameProblem(name);
      if (problem) throw new UsageError(`--name ${problem}`);
      const owner = await context.userByEmail(requiredString(values, 'owner'));
      const { store } = await context.auth();
      const company = await store.createCompany(owner.guid, name);
      return {
        json: { ...companyJson(company), owner_id: owner.guid },
        text: `Created company ${company.guid} "${company.name}"; member: ${owner.email}.`,
      };
    },
  },
  {
    path: ['company', 'add-member'],
    summary: 'Make a user a member of a company (idempotent).',
    details: "New tokens of the user can then cover the company; the user's existing tokens do not.",
    options: {
      company: { type: 'string', placeholder: 'guid', description: 'GUID of the company.', required: true },
      email: { type: 'string', placeholder: 'email', description: 'E-mail address of the user.', required: true },
    },
    examples: ['ticketing company add-member --company 0b7f5f2e-0c1d-4a0e-9d43-5b7c9a1e2f30 --email bob@example.com'],
    async run(context, values) {
      const companyId = requiredString(values, 'company').trim().toLowerCase();
      if (!isGuid(companyId)) throw new UsageError('--company must be a company GUID');
      const user = await context.userByEmail(requiredString(values, 'email'));
      const { store } = await context.auth();
      const [company] = await store.companies([companyId]);
      if (!company) throw new CliError(`no company ${companyId}`);
      const already = (await store.companyIdsOf(user.guid)).includes(companyId);
      if (!already) await store.addMember(user.guid, companyId);
      return {
        json: { company_id: companyId, user_id: user.guid, added: !already },
        text: already ? `${user.email} is already a member of "${company.name}".` : `Added ${user.email} to "${company.name}" (${companyId}).`,
      };
    },
  },
];
