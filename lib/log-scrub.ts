/**
 * Scrubs secrets out of text on its way to a log, whatever field or message carries them.
 * Shapes: credentials after an HTTP auth scheme, JWTs, the 256-bit base64url secrets the
 * auth service makes (refresh tokens, client secrets), passwords in URLs; and every value
 * registered as a secret (signing key, internal key).
 */

const REDACTED = '[redacted]';

// `\\[tnr]` too: in a JSON log line a tab inside a header value is the two characters \t.
const SEPARATOR = String.raw`(?:\s|\\[tnr])+`;
/** Exported for test/fields/linear-patterns.test.ts: the first is built at run time, out of the lint's sight. */
export const SHAPES: Array<[RegExp, string]> = [
  [new RegExp(String.raw`\b(Bearer|Basic)${SEPARATOR}[^\s"\\,;]+`, 'gi'), `$1 ${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  [/(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, REDACTED],
  [/((?<!\w)\w+:\/\/[^:/@\s"]*:)[^@\s"]+@/g, `$1${REDACTED}@`],
];

const known = new Set<string>();

/** Makes `value` unloggable from now on (ignored when too short to be a secret). */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 8) known.add(value);
}

export function scrubSecrets(text: string): string {
  let result = text;
  for (const secret of known) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  for (const [pattern, replacement] of SHAPES) result = result.replace(pattern, replacement);
  return result;
}
