/** The licence is stated the same way in LICENSE, package.json and the OpenAPI document. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../gateway/openapi/document.js';

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

describe('licence', () => {
  it('is Apache-2.0 everywhere it is stated', () => {
    const license = read('LICENSE');
    expect(license).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s+http:\/\/www\.apache\.org\/licenses\//);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    expect((JSON.parse(read('package.json')) as { license?: string }).license).toBe('Apache-2.0');
    expect(openApiDocument({ authPrefix: '/auth' }).info).toMatchObject({ license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } });
  });
});
