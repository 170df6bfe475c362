/**
 * Built-in detectors of personal data an output rule can name (`detect: [email, card]`): each finds
 * the substrings of a string that look like one kind of datum, so a rule can mask them wherever they
 * sit in a result, also inside free text.
 *
 * The patterns are deliberately narrow where a checksum exists: a card number must pass the Luhn
 * check and an IBAN the ISO 13616 mod-97 check, so order numbers and other long digit runs are left
 * alone. Emails and phone numbers have no checksum; the phone pattern wants a leading `+` or a
 * separator-grouped number of 8 to 15 digits, which keeps dates, amounts and plain ids out.
 */

export type DetectorName = 'email' | 'phone' | 'card' | 'iban';

export const DETECTORS: readonly DetectorName[] = ['email', 'phone', 'card', 'iban'];

interface Detector {
  /** Global; candidates it finds are kept only if `valid` agrees. */
  readonly pattern: RegExp;
  readonly valid?: (match: string) => boolean;
  /**
   * With a checksum: the datum a match holds without its separators (`normal`), the check on it,
   * and its shortest length, so that a match that fails may be cut at an earlier separator.
   */
  readonly checksum?: {
    readonly normal: (match: string) => string;
    readonly check: (normal: string) => boolean;
    readonly min: number;
  };
}

const CARD = { normal: (m: string) => digitsOf(m), check: luhn, min: 13 };
const IBAN = { normal: (m: string) => m.replace(/ /g, '').toUpperCase(), check: ibanValid, min: 15 };

const TABLE: Record<DetectorName, Detector> = {
  // The local part from where its run of characters starts (the lookbehind), however long: a match
  // may only start there, so each run is read once, and a local part over 64 characters is masked
  // whole rather than from its last 64.
  email: {
    pattern:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}/g,
  },
  // 13 to 19 digits, optionally grouped by single spaces, dots or dashes, not inside a longer run of
  // digits (a letter or a dash may touch it: ref-4111…, 4111…-0925).
  card: { pattern: /(?<!\d)\d(?:[ .-]?\d){12,18}(?!\d)/g, checksum: CARD },
  // Two letters, two check digits, then 11 to 30 letters or digits, optionally in groups of four; in
  // any case (a lowercase IBAN is one too).
  iban: { pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/gi, checksum: IBAN },
  phone: {
    pattern:
      /(?<![\w+.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{1,8}){1,4}(?![\w.-])|\+\d{8,15}\b/g,
    valid: (m) => {
      const digits = digitsOf(m).length;
      // A date (2024-05-01, 01.05.2024) has 8 digits and separators too.
      if (/^\d{4}-\d{2}-\d{2}$|^\d{2}[./-]\d{2}[./-]\d{4}$/.test(m)) return false;
      return digits >= 8 && digits <= 15 && (m.startsWith('+') || /[ .()-]/.test(m));
    },
  },
};

/** The digits of a string, in order. */
function digitsOf(text: string): string {
  return text.replace(/\D/g, '');
}

/** The Luhn check (ISO/IEC 7812) of a string of digits. */
export function luhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616: move the first four characters to the end, letters to 10..35, and the number mod 97 is 1. */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of moved) {
    const code = char.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/**
 * `text` with every match of the named detectors replaced by `[name]`. Card numbers are looked for
 * before phone numbers (a grouped card number also looks like a phone number), IBANs before both.
 */
export function redact(text: string, names: readonly DetectorName[]): string {
  let out = text;
  for (const name of ORDER) {
    if (!names.includes(name)) continue;
    const { pattern, valid, checksum } = TABLE[name];
    pattern.lastIndex = 0;
    out = out.replace(pattern, (match) => {
      if (checksum !== undefined) {
        const end = checkedLength(match, checksum);
        return end === 0 ? match : `[${name}]${match.slice(end)}`;
      }
      return valid === undefined || valid(match) ? `[${name}]` : match;
    });
  }
  return out;
}

/**
 * How much of `match`, from its start, holds a datum that passes its check: the whole, or the
 * longest start cut before a separator (0: none). A match runs as far as its pattern allows, so
 * `4111 1111 1111 1111 22`, or an IBAN followed by a word, reads as more of it; the datum is its
 * start. A match is a few dozen characters, each cut costs one check.
 */
function checkedLength(match: string, checksum: NonNullable<Detector['checksum']>): number {
  const normal = checksum.normal(match);
  if (checksum.check(normal)) return match.length;
  let kept = normal.length;
  for (let end = match.length - 1; end > 0 && kept >= checksum.min; end--) {
    const char = match[end] as string;
    if (char !== ' ' && char !== '.' && char !== '-') {
      kept--;
      continue;
    }
    if (kept >= checksum.min && checksum.check(normal.slice(0, kept))) return end;
  }
  return 0;
}

const ORDER: readonly DetectorName[] = ['email', 'iban', 'card', 'phone'];
