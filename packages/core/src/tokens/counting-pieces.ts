const LETTER = 0;
const DIGIT = 1;
const SPACE = 2;
const OTHER = 3;

const asciiClass = (code: number): number => {
  if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90)) return LETTER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 32 || (code >= 9 && code <= 13)) return SPACE;
  return OTHER;
};

/**
 * Cuts `text` into pieces whose token counts add up to the count of the whole, so that the
 * tokenizer's cost stays linear:
 *
 * - o200k's pre-tokenizer keeps a run of one character class (letters, punctuation, whitespace)
 *   as one piece, and byte-pair merging is quadratic in a piece's length. A run longer than
 *   `maxRun` characters is cut every `maxRun` characters. Merges across such a cut are lost, so
 *   the count may grow by about one token per cut (measured: at most 1 per cut, 0.4% on a run of
 *   random letters); text without such runs is not cut there.
 * - Past `sliceChars` the text is cut where the pre-tokenizer always splits (before a space that
 *   starts a word after a letter, digit or punctuation, or before a line break after a letter or
 *   digit), which changes no count; text without such places (minified JSON) is cut at a change of
 *   character class past twice that size (an estimate off by at most about one token per cut).
 */
export function* countingPieces(
  text: string,
  maxRun: number,
  sliceChars: number,
): Generator<string, void, undefined> {
  // Sticky, so a code point is classified where it stands without a substring per character;
  // made only when the text has a non-ASCII character.
  let unicode: { letter: RegExp; digit: RegExp; space: RegExp } | undefined;
  const test = (re: RegExp, i: number) => {
    re.lastIndex = i;
    return re.test(text);
  };
  const classAt = (i: number, code: number): number => {
    if (code < 128) return asciiClass(code);
    unicode ??= { letter: /\p{L}/uy, digit: /\p{N}/uy, space: /\s/uy };
    if (test(unicode.letter, i)) return LETTER;
    if (test(unicode.digit, i)) return DIGIT;
    return test(unicode.space, i) ? SPACE : OTHER;
  };

  let start = 0;
  let runClass = -1;
  let runLength = 0;
  let exactCut = -1;
  let classChange = -1;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) as number;
    const cls = classAt(i, code);
    if (cls === runClass) {
      runLength++;
      if (runLength > maxRun && cls !== DIGIT) {
        yield text.slice(start, i);
        start = i;
        runLength = 1;
        exactCut = -1;
        classChange = -1;
      }
    } else {
      if (i > start) {
        classChange = i;
        const next = text.charCodeAt(i + 1);
        if (
          (code === 32 && runClass !== SPACE && asciiClass(next) === LETTER) ||
          ((code === 10 || code === 13) && (runClass === LETTER || runClass === DIGIT))
        )
          exactCut = i;
      }
      runClass = cls;
      runLength = 1;
    }
    const size = i - start;
    if (size >= sliceChars && (exactCut > start || (size >= 2 * sliceChars && classChange > start))) {
      const cut = exactCut > start ? exactCut : classChange;
      yield text.slice(start, cut);
      start = cut;
      exactCut = -1;
      classChange = -1;
    }
    i += code > 0xffff ? 2 : 1;
  }
  if (start < text.length) yield text.slice(start);
}
