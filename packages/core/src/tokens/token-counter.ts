import type { TokenEncoding } from "../ports/token-encoding.js";
import { countingPieces } from "./counting-pieces.js";

/**
 * Pieces the counter hands to the tokenizer at once: byte-pair merging is quadratic in the length of
 * one pre-token, so a run of one character class is counted in pieces of at most this many
 * characters (see counting-pieces.ts for the error bound), and long texts are cut near this size.
 */
export const TOKEN_PIECE_CHARS = 128;
/** Cut texts into pieces of about this size at exact places, so that each piece costs a bounded time. */
export const TOKEN_SLICE_CHARS = 4096;

const countPiece = (encoding: TokenEncoding, piece: string): number =>
  piece.length === 0 ? 0 : encoding.count(piece);

/**
 * The count of `text` in the gateway's one encoding (o200k_base, the encoding of GPT-5-class
 * models, through the `TokenEncoding` port). Used for output limits and for the token-counting
 * endpoints; for other model families it is an estimate.
 * Linear in the text: exact for ordinary text, at most one token more per 128 characters of an
 * unbroken run of one character class (a 100 KB run of letters without a space).
 */
export const countTokens = (encoding: TokenEncoding, text: string): number => {
  if (text.length <= TOKEN_PIECE_CHARS) return countPiece(encoding, text);
  let total = 0;
  for (const piece of countingPieces(text, TOKEN_PIECE_CHARS, TOKEN_SLICE_CHARS))
    total += countPiece(encoding, piece);
  return total;
};

/** A step of `countTokensInSteps` gathers pieces up to this many characters (a few ms at worst). */
const STEP_CHARS = 1024;

/**
 * The same count, a slice at a time: a caller that must not hold the event loop (a token-counting
 * endpoint) can yield between the steps. Each step's value is the count of its slice.
 */
export function* countTokensInSteps(
  encoding: TokenEncoding,
  text: string,
): Generator<number, void, undefined> {
  let count = 0;
  let chars = 0;
  // A long run comes in many short pieces: a step gathers pieces up to a step's size.
  for (const piece of countingPieces(text, TOKEN_PIECE_CHARS, TOKEN_SLICE_CHARS)) {
    count += countPiece(encoding, piece);
    chars += piece.length;
    if (chars >= STEP_CHARS) {
      yield count;
      count = 0;
      chars = 0;
    }
  }
  if (chars > 0) yield count;
}

/**
 * The same count without holding the caller for long: `pause` is awaited after each step (a
 * token-counting endpoint passes one that yields to the event loop, so a megabyte of input cannot
 * stall other requests).
 */
export const countTokensPausing = async (
  encoding: TokenEncoding,
  texts: Iterable<string>,
  pause: () => Promise<void>,
): Promise<number> => {
  let total = 0;
  for (const text of texts)
    for (const count of countTokensInSteps(encoding, text)) {
      total += count;
      await pause();
    }
  return total;
};

/** Up to this many characters `estimateTokens` counts exactly (a bounded cost: milliseconds). */
export const EXACT_COUNT_CHARS = 8192;
const SAMPLE_WINDOWS = 4;

/**
 * The count where the text is short, an estimate where it is not: the token density of four
 * windows spread over the text (8 KiB in all), scaled to its length. For output-side counting
 * that runs inside a turn's synchronous pass (a single huge upstream delta), where an exact count
 * could take seconds.
 */
export const estimateTokens = (encoding: TokenEncoding, text: string): number => {
  if (text.length <= EXACT_COUNT_CHARS) return countTokens(encoding, text);
  const width = EXACT_COUNT_CHARS / SAMPLE_WINDOWS;
  let counted = 0;
  for (let k = 0; k < SAMPLE_WINDOWS; k++) {
    const start = Math.floor((k * (text.length - width)) / (SAMPLE_WINDOWS - 1));
    counted += countTokens(encoding, text.slice(start, start + width));
  }
  return Math.max(1, Math.round((counted * text.length) / EXACT_COUNT_CHARS));
};

/** The tokens of `text`, encoded piece by piece as `countTokens` counts them. */
const encodeLinear = (encoding: TokenEncoding, text: string): number[] => {
  if (text.length <= TOKEN_PIECE_CHARS) return encoding.encode(text);
  const tokens: number[] = [];
  for (const piece of countingPieces(text, TOKEN_PIECE_CHARS, TOKEN_SLICE_CHARS))
    for (const token of encoding.encode(piece)) tokens.push(token);
  return tokens;
};

/** The longest start of `text` made of at most `maxTokens` of its own tokens (whole characters only). */
export const tokenPrefix = (encoding: TokenEncoding, text: string, maxTokens: number): string => {
  // Only the start of the text can be within the limit: no counted token is longer than a piece.
  const reach = Math.max(0, maxTokens) * TOKEN_PIECE_CHARS;
  const head = text.length > reach ? text.slice(0, reach) : text;
  const tokens = encodeLinear(encoding, head);
  if (tokens.length <= maxTokens && head === text) return text;
  for (let n = Math.min(tokens.length, Math.max(0, maxTokens)); n > 0; n--) {
    const prefix = encoding.decode(tokens.slice(0, n));
    // A token can end inside a multi-byte character; step back to a clean one.
    if (text.startsWith(prefix)) return prefix;
  }
  return "";
};

/**
 * `estimateTokens` over several texts read as one (a prompt's instructions, messages and tools):
 * exact when they are short together, else the density of four windows spread over all of them,
 * scaled to their length. A bounded cost (8 KiB counted) however many and however long.
 */
export const estimateTokensOfTexts = (encoding: TokenEncoding, texts: ReadonlyArray<string>): number => {
  let total = 0;
  for (const text of texts) total += text.length;
  if (total <= EXACT_COUNT_CHARS) {
    let count = 0;
    for (const text of texts) count += countTokens(encoding, text);
    return count;
  }
  const width = EXACT_COUNT_CHARS / SAMPLE_WINDOWS;
  let counted = 0;
  let sampled = 0;
  let k = 0;
  let at = Math.floor((k * (total - width)) / (SAMPLE_WINDOWS - 1));
  let offset = 0;
  for (const text of texts) {
    // Each window starts in one text and is cut at its end (a short last piece only adds less).
    while (k < SAMPLE_WINDOWS && at < offset + text.length) {
      const piece = text.slice(at - offset, at - offset + width);
      counted += countTokens(encoding, piece);
      sampled += piece.length;
      k++;
      at = Math.floor((k * (total - width)) / (SAMPLE_WINDOWS - 1));
    }
    offset += text.length;
  }
  return sampled === 0 ? 0 : Math.max(1, Math.round((counted * total) / sampled));
};
