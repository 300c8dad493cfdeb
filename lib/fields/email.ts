/** What passes for an e-mail address everywhere one is taken (a sign-up's login, a barcode's holder): something@domain.tld, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const isEmail = (value: string): boolean => EMAIL.test(value);
