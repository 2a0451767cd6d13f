import bpeRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { GptEncoding } from "gpt-tokenizer/GptEncoding";
import { countingPieces } from "./counting-pieces.js";

/** Text that spells a special token (`<|endoftext|>`) is counted as the plain text it is, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() } as const;

/**
 * Pieces the counter hands to the tokenizer at once: byte-pair merging is quadratic in the length of
 * one pre-token, so a run of one character class is counted in pieces of at most this many
 * characters (see counting-pieces.ts for the error bound), and long texts are cut near this size.
 */
export const TOKEN_PIECE_CHARS = 128;
/** Cut texts into pieces of about this size at exact places, so that each piece costs a bounded time. */
export const TOKEN_SLICE_CHARS = 4096;

/**
 * The o200k_base encoder, built on the first count rather than at import: its tables cost ~26 MiB
 * of RSS and a few hundred ms of start-up that a gateway whose upstreams report usage never needs.
 * Building is deterministic, so the one cached instance is a constant, not state.
 */
const o200k = (() => {
  let api: GptEncoding | undefined;
  return (): GptEncoding => {
    api ??= GptEncoding.getEncodingApi("o200k_base", () => bpeRanks);
    return api;
  };
})();

const countPiece = (piece: string): number => (piece.length === 0 ? 0 : o200k().countTokens(piece, AS_TEXT));

/**
 * The gateway's one tokenizer: o200k_base, the encoding of GPT-5-class models. Used for output
 * limits and for the token-counting endpoints; for other model families it is an estimate.
 * Linear in the text: exact for ordinary text, at most one token more per 128 characters of an
 * unbroken run of one character class (a 100 KB run of letters without a space).
 */
export const countTokens = (text: string): number => {
  if (text.length <= TOKEN_PIECE_CHARS) return countPiece(text);
  let total = 0;
  for (const piece of countingPieces(text, TOKEN_PIECE_CHARS, TOKEN_SLICE_CHARS)) total += countPiece(piece);
  return total;
};

/** A step of `countTokensInSteps` gathers pieces up to this many characters (a few ms at worst). */
const STEP_CHARS = 1024;

/**
 * The same count, a slice at a time: a caller that must not hold the event loop (a token-counting
 * endpoint) can yield between the steps. Each step's value is the count of its slice.
 */
export function* countTokensInSteps(text: string): Generator<number, void, undefined> {
  let count = 0;
  let chars = 0;
  // A long run comes in many short pieces: a step gathers pieces up to a step's size.
  for (const piece of countingPieces(text, TOKEN_PIECE_CHARS, TOKEN_SLICE_CHARS)) {
    count += countPiece(piece);
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
  texts: Iterable<string>,
  pause: () => Promise<void>,
): Promise<number> => {
  let total = 0;
  for (const text of texts)
    for (const count of countTokensInSteps(text)) {
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
export const estimateTokens = (text: string): number => {
  if (text.length <= EXACT_COUNT_CHARS) return countTokens(text);
  const width = EXACT_COUNT_CHARS / SAMPLE_WINDOWS;
  let counted = 0;
  for (let k = 0; k < SAMPLE_WINDOWS; k++) {
    const start = Math.floor((k * (text.length - width)) / (SAMPLE_WINDOWS - 1));
    counted += countTokens(text.slice(start, start + width));
  }
  return Math.max(1, Math.round((counted * text.length) / EXACT_COUNT_CHARS));
};

/** The tokens of `text`, encoded piece by piece as `countTokens` counts them. */
const encodeLinear = (text: string): number[] => {
  if (text.length <= TOKEN_PIECE_CHARS) return o200k().encode(text, AS_TEXT);
  const tokens: number[] = [];
  for (const piece of countingPieces(text, TOKEN_PIECE_CHARS, TOKEN_SLICE_CHARS))
    for (const token of o200k().encode(piece, AS_TEXT)) tokens.push(token);
  return tokens;
};

/** The longest start of `text` made of at most `maxTokens` of its own tokens (whole characters only). */
export const tokenPrefix = (text: string, maxTokens: number): string => {
  // Only the start of the text can be within the limit: no counted token is longer than a piece.
  const reach = Math.max(0, maxTokens) * TOKEN_PIECE_CHARS;
  const head = text.length > reach ? text.slice(0, reach) : text;
  const tokens = encodeLinear(head);
  if (tokens.length <= maxTokens && head === text) return text;
  for (let n = Math.min(tokens.length, Math.max(0, maxTokens)); n > 0; n--) {
    const prefix = o200k().decode(tokens.slice(0, n));
    // A token can end inside a multi-byte character; step back to a clean one.
    if (text.startsWith(prefix)) return prefix;
  }
  return "";
};
