/**
 * One access token, one spelling (issue 32, item 9). An ES256 signature (r, s) verifies as well
 * as (r, n - s), and a base64url text whose last character carries unused bits decodes to the
 * same bytes whatever those bits are: so a token had up to 32 spellings that all verified, each
 * a new token to a cache or a limit keyed on its text. We sign with the low s only (s <= n/2,
 * as Bitcoin's BIP 62 and Ethereum's EIP-2 require) and accept nothing else: every part must be
 * canonical base64url (no padding, unused bits zero) and the signature 64 bytes with a low s.
 */

/** The order of the P-256 group. */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const HALF_N = N >> 1n;
const SCALAR_BYTES = 32;

const toBigInt = (bytes: Buffer): bigint => BigInt(`0x${bytes.toString('hex') || '0'}`);
const toBytes = (value: bigint): Buffer => Buffer.from(value.toString(16).padStart(SCALAR_BYTES * 2, '0'), 'hex');

/** Whether a text is the one base64url spelling of its bytes. */
const isCanonicalBase64url = (text: string): boolean => text.length > 0 && Buffer.from(text, 'base64url').toString('base64url') === text;

/** Whether a compact JWS is in its one spelling: three canonical base64url parts, an ES256 signature of 64 bytes with s <= n/2. */
export function isCanonicalToken(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every(isCanonicalBase64url)) return false;
  const signature = Buffer.from(parts[2]!, 'base64url');
  return signature.length === 2 * SCALAR_BYTES && toBigInt(signature.subarray(SCALAR_BYTES)) <= HALF_N;
}

/** A freshly signed ES256 token with its signature's s made low (n - s when it is high): the same signature, its one spelling. */
export function withLowS(token: string): string {
  const [header, payload, encoded] = token.split('.');
  const signature = Buffer.from(encoded!, 'base64url');
  const s = toBigInt(signature.subarray(SCALAR_BYTES));
  if (s <= HALF_N) return token;
  return `${header}.${payload}.${Buffer.concat([signature.subarray(0, SCALAR_BYTES), toBytes(N - s)]).toString('base64url')}`;
}
