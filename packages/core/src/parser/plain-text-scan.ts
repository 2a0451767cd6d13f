import { nextOf } from "./chars.js";
import type { MarkdownFence } from "./markdown-fence.js";
import { createMarkdownFence } from "./markdown-fence.js";

const LT = 60;
const NL = 10;
const SPACE = 32;
const BACKTICK = 96;
const TILDE = 126;
/**
 * Up to this many chars are searched with one `charCodeAt` loop for both stops; longer rests use
 * `indexOf` (vectorised). Codex hands the parser one token (~3 chars) per push, where two
 * `indexOf` calls cost more than the loop.
 */
const SHORT_SCAN = 8;

/**
 * Skips plain text: the only places where a tag may start or the Markdown fence state may change
 * are a `<` and a line break, so text between them is never looked at character by character.
 * Each `<` and line break of a chunk is found once (positions cached per chunk: linear).
 */
export class PlainTextScanner {
  fence: MarkdownFence = createMarkdownFence();
  /** Next `<` and line break in the current chunk at or after the scan position. */
  private ltAt = -1;
  private nlAt = -1;

  /** A new chunk: the cached positions refer to the previous one. */
  newChunk(): void {
    this.ltAt = -1;
    this.nlAt = -1;
  }

  /** A new message: the fence starts over. */
  newMessage(): void {
    this.fence = createMarkdownFence();
  }

  /** The next `<` at or after `from`, or `s.length`. */
  nextLt(s: string, from: number): number {
    if (this.ltAt < from) this.ltAt = nextOf(s, "<", from);
    return this.ltAt;
  }

  /**
   * Skips plain text mid-line from `from`, through fence lines and `<`s that cannot open a block
   * (inside a fence). Stops at a `<` that may open one (mid-line), at a line start the fence is
   * still reading when a `<` follows (the caller feeds it), or at the end of the chunk.
   */
  skipText(s: string, from: number): number {
    const fence = this.fence;
    let i = from;
    for (;;) {
      i = this.skipPlain(s, i);
      if (i >= s.length) return i;
      if (s.charCodeAt(i) === LT) {
        if (fence.blocksAllowed()) return i;
        i += 1;
        continue;
      }
      i = fence.feedLineStart(s, i);
      if (i >= s.length || fence.atLineStart()) return i;
    }
  }

  /** Finds the next `<` and line break at or after `from` (those not cached yet). */
  private locate(s: string, from: number): void {
    const ltKnown = this.ltAt >= from;
    const nlKnown = this.nlAt >= from;
    if (ltKnown && nlKnown) return;
    if (s.length - from > SHORT_SCAN) {
      if (!ltKnown) this.ltAt = nextOf(s, "<", from);
      if (!nlKnown) this.nlAt = nextOf(s, "\n", from);
      return;
    }
    let lt = ltKnown ? this.ltAt : -1;
    let nl = nlKnown ? this.nlAt : -1;
    for (let k = from; k < s.length && (lt < 0 || nl < 0); k += 1) {
      const c = s.charCodeAt(k);
      if (c === LT) {
        if (lt < 0) lt = k;
      } else if (c === NL && nl < 0) nl = k;
    }
    this.ltAt = lt < 0 ? s.length : lt;
    this.nlAt = nl < 0 ? s.length : nl;
  }

  /**
   * Skips plain text from `from`: stops at a `<` or at a line break that may start a fence line
   * (at most 3 spaces, then a backtick or tilde, or the chunk ends first); other lines only reset
   * the fence's per-line state.
   */
  private skipPlain(s: string, from: number): number {
    this.locate(s, from);
    const ltAt = this.ltAt;
    let sawLine = false;
    let end = ltAt;
    while (this.nlAt < ltAt) {
      const at = this.nlAt;
      let k = at + 1;
      while (k < s.length && k <= at + 3 && s.charCodeAt(k) === SPACE) k += 1;
      const d = k < s.length ? s.charCodeAt(k) : BACKTICK;
      if (d === BACKTICK || d === TILDE) {
        end = at;
        break;
      }
      sawLine = true;
      this.nlAt = nextOf(s, "\n", at + 1);
    }
    if (sawLine) this.fence.skippedLines();
    return end;
  }
}
