/**
 * The sign-up input table (lib/fields/user.ts, SIGN_UP_FIELDS) against the proto's
 * SignUpRequest, the user table and the value rules derived from it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { SIGN_UP_FIELDS, USER_FIELDS } from '../../lib/fields/user.js';
import { protoRoot } from '../../lib/grpc/reflection.js';
import { signUpValues } from '../../services/auth/domain/sign-up-rules.js';
import { checkedName, nameProblem } from '../../services/auth/domain/text-rules.js';

function signUpRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  const wellKnown = path.dirname(createRequire(import.meta.url).resolve('protobufjs/package.json'));
  root.resolvePath = (_origin, target) => path.join(target.startsWith('google/protobuf/') ? wellKnown : protoRoot(), target);
  root.loadSync('auth/v1/auth.proto', { keepCase: true });
  return root.lookupType('auth.v1.SignUpRequest');
}

describe('SIGN_UP_FIELDS', () => {
  const type = signUpRequestType();

  it('has exactly the fields of SignUpRequest, in its order', () => {
    expect(type.fieldsArray.map((f) => f.name)).toEqual(Object.keys(SIGN_UP_FIELDS));
  });

  it.each(Object.entries(SIGN_UP_FIELDS))('%s: a string, optional exactly when not required', (name, def) => {
    const field = type.fields[name]!;
    expect(field.type).toBe('string');
    expect(field.options?.proto3_optional === true, name).toBe(!('required' in def && def.required));
  });

  it('takes the user object\'s kind for every field the user object has, so a limit is written once', () => {
    const shared = Object.keys(SIGN_UP_FIELDS).filter((name) => name in USER_FIELDS);
    expect(shared).toEqual(['name', 'email', 'phone']);
    for (const name of shared) {
      expect(SIGN_UP_FIELDS[name as keyof typeof SIGN_UP_FIELDS].kind, name).toBe(USER_FIELDS[name as keyof typeof USER_FIELDS].kind);
    }
  });
});

describe('sign-up value rules, derived from the table', () => {
  const valid = { name: ' Ann ', email: ' Ann@Example.COM ', password: ' 8 chars ' };

  it('trims, lower-cases the e-mail address, keeps the password verbatim and reads blank optional fields as null', () => {
    expect(signUpValues({ ...valid, phone: '  ' })).toEqual({
      values: { name: 'Ann', email: 'ann@example.com', password: ' 8 chars ', company_name: null, phone: null },
      violations: [],
    });
  });

  it('reports every bad field in the table\'s order, with the service\'s messages', () => {
    const { violations } = signUpValues({ name: ' ', email: 'x@y', password: 'short', company_name: 'c'.repeat(256), phone: '1'.repeat(65) });
    expect(violations).toEqual([
      { field: 'name', description: 'must be 1 to 255 characters' },
      { field: 'email', description: 'must be an e-mail address' },
      { field: 'password', description: 'must be at least 8 characters' },
      { field: 'company_name', description: 'must be at most 255 characters' },
      { field: 'phone', description: 'must be at most 64 characters' },
    ]);
  });

  it('holds the upper limits', () => {
    const { violations } = signUpValues({ name: 'n'.repeat(256), email: `${'e'.repeat(316)}@x.io`, password: 'p'.repeat(1025) });
    expect(violations).toEqual([
      { field: 'name', description: 'must be 1 to 255 characters' },
      { field: 'email', description: 'must be an e-mail address' },
      { field: 'password', description: 'must be at most 1024 characters' },
    ]);
    expect(signUpValues({ name: 'n'.repeat(255), email: `${'e'.repeat(315)}@x.io`, password: 'p'.repeat(1024), phone: '1'.repeat(64) }).violations).toEqual([]);
  });

  it('counts characters in code points, as MySQL utf8mb4 does: 255 emoji fit a name, 256 do not', () => {
    const emoji = (n: number) => '\u{1F3AB}'.repeat(n);
    expect(signUpValues({ ...valid, name: emoji(255), company_name: emoji(255) }).violations).toEqual([]);
    expect(signUpValues({ ...valid, name: emoji(256), company_name: emoji(256) }).violations).toEqual([
      { field: 'name', description: 'must be 1 to 255 characters' },
      { field: 'company_name', description: 'must be at most 255 characters' },
    ]);
    expect(signUpValues({ ...valid, password: emoji(7) }).violations).toEqual([{ field: 'password', description: 'must be at least 8 characters' }]);
  });
});

describe('company and API client names: the user name\'s rule', () => {
  it('trims, and takes 1 to 255 characters in code points', () => {
    expect(checkedName(`  ${'\u{1F3AB}'.repeat(255)} `)).toBe('\u{1F3AB}'.repeat(255));
    expect(nameProblem('\u{1F3AB}'.repeat(256))).toBe('must be 1 to 255 characters');
    expect(nameProblem('   ')).toBe('must be 1 to 255 characters');
    let refused: unknown;
    try {
      checkedName('');
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ code: status.INVALID_ARGUMENT, details: { fieldViolations: [{ field: 'name', description: 'must be 1 to 255 characters' }] } });
  });
});
