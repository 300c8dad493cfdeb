/**
 * Issue 32, item 1: no regular expression may backtrack super-linearly. The lint
 * (eslint.config.js, eslint-plugin-regexp's no-super-linear-backtracking and
 * no-super-linear-move) sees every pattern written as a literal; this test gives it the
 * patterns the code builds at run time too: every `pattern` of /openapi.json (the server's
 * rules the document states, such as the webhook URL's) and the built ones of lib/ (the GUID,
 * the webhook URL's, the log scrubber's, which run over every log line).
 */
import { Linter } from 'eslint';
import regexp from 'eslint-plugin-regexp';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../gateway/openapi/document.js';
import { GUID_PATTERN } from '../../lib/ids.js';
import { SHAPES } from '../../lib/log-scrub.js';
import { HTTP_OR_ADDRESS_URL_PATTERN, HTTP_URL_PATTERN } from '../../lib/webhooks/url-pattern.js';

const linter = new Linter({ configType: 'flat' });
const config = [
  {
    plugins: { regexp },
    rules: { 'regexp/no-super-linear-backtracking': 'error', 'regexp/no-super-linear-move': 'error' },
  },
] as Linter.Config[];

/** The lint's complaints about one pattern (as `new RegExp(pattern)`). */
const complaints = (pattern: string): string[] =>
  linter.verify(`new RegExp(${JSON.stringify(pattern)});`, config).map((message) => message.message);

/** Every `pattern` in a JSON document. */
function patternsOf(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) patternsOf(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      else patternsOf(value, found);
    }
  }
  return found;
}

describe('patterns run in linear time', () => {
  it('the checker itself refuses the e-mail pattern of before', () => {
    expect(complaints('^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$')).not.toEqual([]);
  });

  const patterns = [...patternsOf(openApiDocument({ authPrefix: '/auth' })), `^${GUID_PATTERN}$`, HTTP_URL_PATTERN, HTTP_OR_ADDRESS_URL_PATTERN, ...SHAPES.map(([pattern]) => pattern.source)];

  it('the document has patterns to check', () => {
    expect(patterns.length).toBeGreaterThan(5);
  });

  it.each(patterns)('%s', (pattern) => {
    expect(complaints(pattern)).toEqual([]);
  });
});
