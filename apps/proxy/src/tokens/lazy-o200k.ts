import { createRequire } from "node:module";
import type { TokenEncoding } from "@proxy/core";
import type { GptEncoding } from "gpt-tokenizer/GptEncoding";

/** Text that spells a special token (`<|endoftext|>`) is counted as the plain text it is, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() } as const;

/**
 * The gateway's tokenizer, o200k_base (gpt-tokenizer), with its rank table loaded on the first
 * count rather than at start-up: the table costs ~30 MiB of RSS and a few hundred ms of module
 * loading that a gateway whose requests set no output limit and count no tokens never needs. The
 * load is synchronous (core counts inside a turn's synchronous pass) and happens once per gateway.
 */
export const lazyO200kEncoding = (): TokenEncoding => {
  let api: GptEncoding | undefined;
  const load = (): GptEncoding => {
    if (api) return api;
    const require = createRequire(import.meta.url);
    const { GptEncoding } =
      require("gpt-tokenizer/GptEncoding") as typeof import("gpt-tokenizer/GptEncoding");
    const ranks = (require("gpt-tokenizer/bpeRanks/o200k_base") as { default: unknown }).default;
    api = GptEncoding.getEncodingApi("o200k_base", () => ranks as never);
    return api;
  };
  return {
    count: (piece) => load().countTokens(piece, AS_TEXT),
    encode: (piece) => load().encode(piece, AS_TEXT),
    decode: (tokens) => load().decode(tokens),
  };
};
