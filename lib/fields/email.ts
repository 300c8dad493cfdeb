/**
 * What passes for an e-mail address everywhere one is taken (a sign-up's login, a barcode's
 * holder): something@domain.tld, no spaces: one `@`, at least one character before it, and a
 * domain with a `.` that has a character on either side.
 *
 * Linear in the length of the text (issue 32, item 1): the earlier single pattern
 * `[^\s@]+\.[^\s@]+` let both quantifiers take the same characters and backtracked
 * quadratically, so a long address held the event loop for seconds.
 */
const SHAPE = /^[^\s@]+@[^\s@]+$/;

export const isEmail = (value: string): boolean => {
  if (!SHAPE.test(value)) return false;
  const domain = value.slice(value.indexOf('@') + 1);
  const dot = domain.indexOf('.', 1);
  return dot > 0 && dot < domain.length - 1;
};
