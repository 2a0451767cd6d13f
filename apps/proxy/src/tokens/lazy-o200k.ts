import { createRequire } from "node:module";
import type { TokenEncoding } from "@proxy/core";
import type { GptEncoding } from "gpt-tokenizer/GptEncoding";

/** Text that spells a special token (`<|endoftext|>`) is counted as the plain text it is, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() } as const;

/**
 * The gateway's tokenizer, o200k_base (gpt-tokenizer). Its rank table costs ~30 MiB of RSS and a
 * few hundred ms of synchronous module loading, which must not fall on a request (core counts
 * inside a turn's synchronous pass): the gateway calls `load()` a moment after it starts, and a
 * count before that loads it on the spot.
 */
export const lazyO200kEncoding = (): TokenEncoding & { readonly load: () => void } => {
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
    load: () => void load(),
    count: (piece) => load().countTokens(piece, AS_TEXT),
    encode: (piece) => load().encode(piece, AS_TEXT),
    decode: (tokens) => load().decode(tokens),
  };
};
