/**
 * Tracks Markdown code fences in the text stream, one character at a time. A line whose first
 * non-space characters (at most 3 spaces of indent) are a run of 3+ backticks or tildes opens a
 * fence; a run of the same character at least as long closes it. Sentinel blocks inside a fence,
 * or on a fence line itself (its info string), are plain text.
 */
export interface MarkdownFence {
  feed(code: number): void;
  /**
   * Whether the fence still looks at the current line. When false, only a newline changes its
   * state, so the scanner may skip other characters without feeding them.
   */
  atLineStart(): boolean;
  /** Whether a sentinel tag may start at the character just fed. */
  blocksAllowed(): boolean;
  /**
   * The scanner skipped text containing line breaks, none followed by a possible fence (at most
   * 3 spaces, then a backtick or tilde): the same state as feeding it.
   */
  skippedLines(): void;
  /** A sentinel block was consumed: the current line is no longer at its start. */
  midLine(): void;
  /**
   * Feeds the line break at `from` and what follows while the line is at its start (indent and
   * a possible fence run), stopping before a `<` (the caller decides whether it opens a block).
   * Returns the index of the first character not fed. Same state as feeding them one by one.
   */
  feedLineStart(s: string, from: number): number;
}

const BACKTICK = 96;
const TILDE = 126;
const LT = 60;

export function createMarkdownFence(): MarkdownFence {
  let atLineStart = true;
  let indent = 0;
  let runChar = 0;
  let runLength = 0;
  let fenceChar = 0; // 0 = not inside a fence
  let fenceLength = 0;
  let onFenceLine = false;

  const endRun = () => {
    if (runLength >= 3) {
      onFenceLine = true;
      if (fenceChar === 0) {
        fenceChar = runChar;
        fenceLength = runLength;
      } else if (runChar === fenceChar && runLength >= fenceLength) fenceChar = 0;
    }
    atLineStart = false;
    runLength = 0;
  };

  const feed = (c: number) => {
    if (c === 10) {
      if (atLineStart) endRun();
      atLineStart = true;
      indent = 0;
      runLength = 0;
      onFenceLine = false;
      return;
    }
    if (!atLineStart) return;
    if (c === 32 && runLength === 0 && indent < 3) {
      indent += 1;
      return;
    }
    if ((c === BACKTICK || c === TILDE) && (runLength === 0 || c === runChar)) {
      runChar = c;
      runLength += 1;
      return;
    }
    endRun();
  };

  return {
    feed,
    atLineStart: () => atLineStart,
    blocksAllowed: () => fenceChar === 0 && !onFenceLine,
    skippedLines() {
      atLineStart = false;
      indent = 0;
      runLength = 0;
      onFenceLine = false;
    },
    midLine() {
      atLineStart = false;
      runLength = 0;
    },
    feedLineStart(s, from) {
      let i = from;
      do {
        feed(s.charCodeAt(i));
        i += 1;
      } while (i < s.length && atLineStart && s.charCodeAt(i) !== LT);
      return i;
    },
  };
}
