import type { TokenEncoding } from "../ports/token-encoding.js";
import { countTokens, EXACT_COUNT_CHARS, estimateTokens, tokenPrefix } from "../tokens/token-counter.js";

export interface BudgetScan {
  /** The part of the delta within the budget (the whole delta unless the budget ran out in it). */
  readonly accepted: string;
  /** The output went past the limit: the turn ends here with finish `length`. */
  readonly exhausted: boolean;
}

export interface OutputTokenBudget {
  push(delta: string): BudgetScan;
  /** Output tokens counted so far. */
  used(): number;
}

const SPLITS_BEFORE = new Set([" ", '"', "{", "}", "[", "]", ",", ":", "(", ")", "."]);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
/** A run without such places is settled anyway past this size (BPE may merge across it: an estimate). */
const MAX_PENDING = 256;

/**
 * Counting restarts only where o200k_base's pre-tokenizer always splits, so the count of the text
 * before the cut never changes again and is taken once: after an ASCII letter or digit and before
 * a space that starts the next word or JSON punctuation; between letters and digits; before an
 * upper-case letter that follows a lower-case one.
 */
const isSafeCut = (text: string, i: number): boolean => {
  const before = text.charCodeAt(i - 1);
  const at = text.charCodeAt(i);
  const letterBefore = isUpper(before) || isLower(before);
  if (SPLITS_BEFORE.has(text[i]!)) {
    // A space starts a clean piece only before a non-space (runs of spaces regroup).
    if (at === 32 && (i + 1 >= text.length || /\s/.test(text[i + 1]!))) return false;
    return letterBefore || isDigit(before);
  }
  return (
    (letterBefore && isDigit(at)) ||
    (isDigit(before) && (isUpper(at) || isLower(at))) ||
    (isLower(before) && isUpper(at))
  );
};

const lastSafeCut = (text: string): number => {
  for (let i = text.length - 1; i > 0; i--) if (isSafeCut(text, i)) return i;
  return 0;
};

/**
 * Enforces an output token limit on streamed text with the gateway's tokenizer, incrementally:
 * text up to the last safe cut is counted once and dropped, only the short tail after it is
 * counted again on the next delta. When a delta crosses the limit, the part of it covered by the
 * first tokens up to the limit is accepted (one encode, once per turn).
 */
export const createOutputTokenBudget = (limit: number, encoding: TokenEncoding): OutputTokenBudget => {
  let settled = 0;
  let pending = "";
  let exhausted = limit <= 0;

  /**
   * A delta too long to count exactly within a turn's synchronous pass (a hostile upstream's
   * megabytes in one event): its count is estimated, and where it crosses the limit the cut is
   * placed by the same density. Ordinary streams never come here (their deltas are tokens).
   */
  const pushLarge = (text: string): BudgetScan => {
    const delta = text.slice(pending.length);
    const estimate = estimateTokens(encoding, text);
    pending = "";
    if (settled + estimate <= limit) {
      settled += estimate;
      return { accepted: delta, exhausted: false };
    }
    exhausted = true;
    let cut = Math.floor((text.length * (limit - settled)) / estimate);
    // Never between the halves of a surrogate pair.
    if (cut > 0 && cut < text.length && /[\uDC00-\uDFFF]/.test(text[cut] as string)) cut--;
    settled = limit;
    return {
      accepted: cut > text.length - delta.length ? text.slice(text.length - delta.length, cut) : "",
      exhausted: true,
    };
  };

  return {
    push(delta) {
      if (exhausted) return { accepted: "", exhausted: true };
      const text = pending + delta;
      if (text.length > EXACT_COUNT_CHARS) return pushLarge(text);
      const total = settled + countTokens(encoding, text);
      // Reaching the limit exactly is not yet exceeding it: the answer may end right there.
      if (total <= limit) {
        let cut = lastSafeCut(text);
        // No clean split in a long run: settle all but its last few tokens, which may still merge.
        // (A run of a few huge tokens, such as whitespace, is cut whole: the cost must stay bounded.)
        if (cut === 0 && text.length > MAX_PENDING)
          cut = tokenPrefix(encoding, text, total - settled - 8).length || text.length;
        if (cut > 0) {
          settled += countTokens(encoding, text.slice(0, cut));
          pending = text.slice(cut);
        } else pending = text;
        return { accepted: delta, exhausted: false };
      }
      exhausted = true;
      // The output the model would have written had it stopped at its limit-th token.
      const within = tokenPrefix(encoding, text, limit - settled);
      const accepted = within.length > pending.length ? within.slice(pending.length) : "";
      settled = limit;
      pending = "";
      return { accepted, exhausted: true };
    },
    used: () => settled + (pending === "" ? 0 : estimateTokens(encoding, pending)),
  };
};
