import bpeRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { GptEncoding } from "gpt-tokenizer/GptEncoding";

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

/** Text that spells a special token (`<|endoftext|>`) is counted as the plain text it is, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() } as const;

/**
 * The gateway's one tokenizer: o200k_base, the encoding of GPT-5-class models. Used for output
 * limits and for the token-counting endpoints; for other model families it is an estimate.
 */
export const countTokens = (text: string): number =>
  text.length === 0 ? 0 : o200k().countTokens(text, AS_TEXT);

/** The longest start of `text` made of at most `maxTokens` of its own tokens (whole characters only). */
export const tokenPrefix = (text: string, maxTokens: number): string => {
  const { encode, decode } = o200k();
  const tokens = encode(text, AS_TEXT);
  if (tokens.length <= maxTokens) return text;
  for (let n = Math.max(0, maxTokens); n > 0; n--) {
    const prefix = decode(tokens.slice(0, n));
    // A token can end inside a multi-byte character; step back to a clean one.
    if (text.startsWith(prefix)) return prefix;
  }
  return "";
};
