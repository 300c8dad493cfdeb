/**
 * The form of a webhook URL, as one pattern (ECMA-262, no flags): the service refuses at
 * creation and update every URL it does not match, and /openapi.json states it as the `url`
 * field's `pattern` (gateway/openapi/schemas.ts), so the document and the server refuse the
 * same URLs (issue 32, item 15). What a URL must also be beyond its form (a public target) is
 * lib/webhooks/targets.ts.
 *
 * An absolute http or https URL without user name or password whose host is a name (with a
 * trailing dot too, a fully qualified name); where the operator allows private targets, also an
 * IPv4 address in dotted decimal or an IPv6 address in brackets (by default an address literal
 * is refused for its form: a public receiver has a name, and the document states the default).
 * A name's last label starts with a
 * letter, so it is never read as an IPv4 address; no label has two hyphens in a row (no "xn--",
 * whose punycode the URL parser would check); a port is at most 65535; a path, a query and a
 * fragment, in that order, made of the characters RFC 3986 leaves unencoded (no percent
 * escapes, no brackets). Every quantifier is bounded or stops at a character the next part
 * cannot start with, so it runs in linear time (test/fields/linear-patterns.test.ts).
 */

/** Non-negative integers without leading zeros, up to `max` (a digit string): the usual digit-by-digit alternation. */
export function integersUpTo(max: string): string[] {
  const alternatives: string[] = [];
  if (max.length >= 2) alternatives.push('0', `[1-9]\\d{0,${max.length - 2}}`);
  for (let i = 0; i < max.length; i++) {
    const lowest = i === 0 && max.length > 1 ? 1 : 0;
    const digit = Number(max[i]);
    if (digit > lowest) alternatives.push(`${max.slice(0, i)}[${lowest}-${digit - 1}]${'\\d'.repeat(max.length - 1 - i)}`);
  }
  alternatives.push(max);
  return alternatives;
}

const OCTET = `(?:${integersUpTo('255').join('|')})`;
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const H16 = '[0-9A-Fa-f]{1,4}';
/** RFC 3986's IPv6address, alternative by alternative (ls32 is two groups or an IPv4 address). */
const LS32 = `(?:${H16}:${H16}|${IPV4})`;
const IPV6 = `(?:${[
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`,
].join('|')})`;
const NAME = '(?:[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\\.)*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*';
const URL_CHARACTER = "-A-Za-z0-9._~:@!$&'()*+,;=";

const urlPattern = (host: string) =>
  `^[Hh][Tt][Tt][Pp][Ss]?://${host}(?::(?:${integersUpTo('65535').join('|')}))?` +
  `(?:/[${URL_CHARACTER}/]*)?(?:\\?[${URL_CHARACTER}/?]*)?(?:#[${URL_CHARACTER}/?]*)?$`;

/** The form of every installation's default (WEBHOOK_ALLOW_PRIVATE_TARGETS=false): a named host. The document states this one. */
export const HTTP_URL_PATTERN = urlPattern(`${NAME}\\.?`);
/** With private targets allowed, whose receivers are often written as addresses: an address literal too. */
export const HTTP_OR_ADDRESS_URL_PATTERN = urlPattern(`(?:(?:${NAME}|${IPV4})\\.?|\\[${IPV6}\\])`);

const HTTP_URL = new RegExp(HTTP_URL_PATTERN);
const HTTP_OR_ADDRESS_URL = new RegExp(HTTP_OR_ADDRESS_URL_PATTERN);

/** The words of a URL refused for its form. */
export const URL_FORM_RULE = 'must be an absolute http or https URL';
/** The words of a public address where only names are taken. */
export const ADDRESS_HOST_RULE = 'must name its host: an address such as 203.0.113.7 is taken only where private targets are allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS=true)';

/** Whether a URL has the form HTTP_URL_PATTERN states (or, with private targets allowed, HTTP_OR_ADDRESS_URL_PATTERN). */
export const hasUrlForm = (text: string, allowPrivate: boolean): boolean => (allowPrivate ? HTTP_OR_ADDRESS_URL : HTTP_URL).test(text);
