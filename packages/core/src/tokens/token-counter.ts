import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

/**
 * The gateway's one tokenizer: o200k_base, the encoding of GPT-5-class models. Used for output
 * limits and for the token-counting endpoints; for other model families it is an estimate.
 */
export const countTokens = (text: string): number => (text.length === 0 ? 0 : countO200k(text));
