/** UTF-8 bytes contributed by one UTF-16 code unit (each half of a surrogate pair counts 2). */
export const utf8Width = (c: number): number =>
  c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;

/** A high surrogate at the end of a chunk waits for its partner before it is emitted. */
export const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** The characters JavaScript's `\s` matches. */
export const isWhitespace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  (c > 127 &&
    (c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff));

/**
 * Advances a literal match of `pattern` by one character and returns the new matched length.
 * Valid for our tags, whose only `<` is their first character, so on a mismatch the match can
 * only restart at this very character.
 */
export const advanceMatch = (pattern: string, matched: number, c: number): number =>
  c === pattern.charCodeAt(matched) ? matched + 1 : c === 60 ? 1 : 0;

/** Index of the next `ch` at or after `from`, or `s.length` (kept a small integer). */
export const nextOf = (s: string, ch: string, from: number): number => {
  const at = s.indexOf(ch, from);
  return at < 0 ? s.length : at;
};
