/**
 * Decodes the inside of a JSON string one code unit at a time, so escapes (including `\uXXXX`
 * halves of a surrogate pair) may be split across chunks. Raw control characters are accepted
 * as themselves: models often put real newlines inside strings, and the argument validator
 * downstream escapes them again.
 */
export interface JsonStringDecoder {
  /** Returns the decoded code unit, or STRING_END, STRING_PENDING (inside an escape), STRING_ERROR. */
  decode(code: number): number;
  /** Not inside an escape sequence: the next ordinary character decodes to itself. */
  idle(): boolean;
}

export const STRING_END = -1;
export const STRING_PENDING = -2;
export const STRING_ERROR = -3;

const SIMPLE_ESCAPES: Readonly<Record<number, number>> = {
  34: 34, // "
  92: 92, // \
  47: 47, // /
  98: 8, // b
  102: 12, // f
  110: 10, // n
  114: 13, // r
  116: 9, // t
};

const hexValue = (c: number) =>
  c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;

export function createJsonStringDecoder(): JsonStringDecoder {
  let escapeState = 0; // 0 none, 1 after backslash, 2..5 reading hex digits
  let value = 0;
  return {
    decode(c) {
      if (escapeState === 0) {
        if (c === 34) return STRING_END;
        if (c === 92) {
          escapeState = 1;
          return STRING_PENDING;
        }
        return c;
      }
      if (escapeState === 1) {
        if (c === 117) {
          escapeState = 2;
          value = 0;
          return STRING_PENDING;
        }
        const simple = SIMPLE_ESCAPES[c];
        escapeState = 0;
        return simple ?? STRING_ERROR;
      }
      const h = hexValue(c);
      if (h < 0) return STRING_ERROR;
      value = value * 16 + h;
      if (escapeState < 5) {
        escapeState += 1;
        return STRING_PENDING;
      }
      escapeState = 0;
      return value;
    },
    idle: () => escapeState === 0,
  };
}
