import bpeRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { GptEncoding } from "gpt-tokenizer/GptEncoding";
import type { TokenEncoding } from "../ports/token-encoding.js";

const AS_TEXT = { disallowedSpecial: new Set<string>() } as const;

/**
 * o200k_base for tests, loaded at import (the gateway's own, in apps/proxy, loads its tables on the
 * first count): the same encoding, so counts in package tests are the gateway's counts.
 */
export const o200kEncoding: TokenEncoding = (() => {
  const api = GptEncoding.getEncodingApi("o200k_base", () => bpeRanks);
  return {
    count: (piece) => api.countTokens(piece, AS_TEXT),
    encode: (piece) => api.encode(piece, AS_TEXT),
    decode: (tokens) => api.decode(tokens),
  };
})();
