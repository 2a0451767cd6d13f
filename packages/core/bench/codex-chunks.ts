/**
 * The piece sizes codex really hands the parser. Measured (2026-11-27) with the real codex binary
 * behind the scripted model provider, through the gateway's chat route in prompt mode, the
 * parser's `push` instrumented: codex forwards each upstream Responses `output_text.delta` as one
 * `item/agentMessage/delta`, and the gateway feeds each of those to the parser on its own (a
 * backend batch is not joined first), whether the upstream paces its deltas (2 ms, 15 ms apart)
 * or sends them in one burst. A real OpenAI upstream sends one token per delta, so the parser sees
 * one o200k token per push: 3.0 chars on average for prose with a tool call (p10 1, p50 3, p90 5,
 * max 9 over 658 pushes). The benches feed their inputs in the token pieces of the input itself.
 */
import bpeRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { GptEncoding } from "gpt-tokenizer/GptEncoding";

const REPLACEMENT = "\uFFFD";

/**
 * The lengths of `text`'s o200k tokens as an upstream streams them: a token that ends inside a
 * character (a multi-byte UTF-8 sequence, a surrogate pair) is sent together with the next one
 * (no delta carries broken UTF-8).
 */
export function tokenPieceSizes(text: string): number[] {
  const api = GptEncoding.getEncodingApi("o200k_base", () => bpeRanks);
  const tokens = api.encode(text, { disallowedSpecial: new Set<string>() });
  const sizes: number[] = [];
  let pending: number[] = [];
  let total = 0;
  for (const token of tokens) {
    pending.push(token);
    const piece = api.decode(pending);
    const last = piece.charCodeAt(piece.length - 1);
    const cut = piece.endsWith(REPLACEMENT) || (last >= 0xd800 && last <= 0xdbff);
    if (cut && pending.length < 4) continue;
    sizes.push(piece.length);
    total += piece.length;
    pending = [];
  }
  if (pending.length > 0) sizes.push(text.length - total);
  return sizes;
}

/** Piece sizes for `input`, in order (~0.1 s per MB to tokenize). */
export function codexChunkSizes(input: string): number[] {
  return tokenPieceSizes(input).filter((n) => n > 0);
}

export const meanOf = (sizes: ReadonlyArray<number>): number =>
  sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length);
