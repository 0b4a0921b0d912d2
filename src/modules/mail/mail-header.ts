/**
 * What may reach a mail header. Header values are built only from these two functions, so no field
 * (a company name, a researcher's product name, an address) can end a header line and add another
 * (CR/LF injection), and no address field can name a second recipient.
 */

/** One line of text for a header: control characters (CR, LF, NUL, ...) become spaces, capped. */
export function headerText(value: string, max = 120): string {
  const line = value
    .replace(/\p{Cc}|\p{Zl}|\p{Zp}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// One mailbox: no spaces, quotes, angle brackets, commas or semicolons (which would name a second
// recipient), no control characters; a dotted domain. Stricter than RFC 5322, which is the point.
const MAILBOX = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** True for a single plain address Cradle will put in `To`. */
export const isSafeMailbox = (address: string): boolean => address.length <= 254 && MAILBOX.test(address);
