import { setImmediate as yieldToLoop } from "node:timers/promises";
import { countTokensPausing, type TokenEncoding } from "@proxy/core";

/**
 * The token count of a token-counting endpoint's texts, slice by slice with the event loop free
 * between slices: counting a megabyte takes seconds, which other requests must not wait for.
 */
export const countTokensYielding = (tokens: TokenEncoding, texts: Iterable<string>): Promise<number> =>
  countTokensPausing(tokens, texts, () => yieldToLoop());
