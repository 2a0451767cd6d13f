/**
 * The tokenizer port: one encoding's count, encode and decode of a piece of text. Core cuts texts
 * into bounded pieces before it asks (tokens/token-counter.ts), so the port's cost per call stays
 * small; the gateway supplies o200k_base and loads its tables on the first count, not at start-up.
 */
export interface TokenEncoding {
  /** Tokens in `piece`; text that spells a special token (`<|endoftext|>`) counts as plain text. */
  count(piece: string): number;
  /** The tokens of `piece`, special-token spellings as plain text. */
  encode(piece: string): number[];
  /** The text of `tokens` (a cut inside a multi-byte character decodes to a replacement character). */
  decode(tokens: ReadonlyArray<number>): string;
}
