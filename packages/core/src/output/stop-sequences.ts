/** What one `push()` lets through: text safe to emit, and whether a stop sequence was reached. */
export interface StopScan {
  /** Text before any stop sequence, minus a tail that may still become one. */
  readonly text: string;
  /** A stop sequence matched: `text` ends right before it, and nothing after it may be emitted. */
  readonly stopped: boolean;
  /** The sequence that matched (when `stopped`). */
  readonly sequence?: string | undefined;
}

export interface StopSequenceMatcher {
  push(delta: string): StopScan;
  /** The held tail at the end of the output: it never became a stop sequence, so it is text. */
  flush(): string;
}

const NOT_STOPPED: StopScan = { text: "", stopped: false };

/**
 * Finds the client's stop sequences in streamed text, across delta boundaries. A tail that is the
 * start of some stop sequence is held until the next delta decides it, so a partial match is never
 * emitted and then taken back. Empty sequences are ignored.
 */
export const createStopSequenceMatcher = (sequences: ReadonlyArray<string>): StopSequenceMatcher => {
  const stops = [...new Set(sequences.filter((s) => s.length > 0))];
  const longest = stops.reduce((n, s) => Math.max(n, s.length), 0);
  let held = "";
  let done = false;

  /** Length of the longest suffix of `text` that is a proper prefix of some stop sequence. */
  const partialTail = (text: string): number => {
    for (let n = Math.min(longest - 1, text.length); n > 0; n--) {
      const tail = text.slice(text.length - n);
      if (stops.some((s) => s.startsWith(tail))) return n;
    }
    return 0;
  };

  return {
    push(delta) {
      if (done) return NOT_STOPPED;
      if (stops.length === 0) return delta === "" ? NOT_STOPPED : { text: delta, stopped: false };
      const text = held + delta;
      let at = -1;
      let sequence: string | undefined;
      for (const s of stops) {
        const i = text.indexOf(s);
        if (i >= 0 && (at < 0 || i < at)) {
          at = i;
          sequence = s;
        }
      }
      if (at >= 0) {
        done = true;
        held = "";
        return { text: text.slice(0, at), stopped: true, sequence };
      }
      const keep = partialTail(text);
      held = text.slice(text.length - keep);
      return { text: text.slice(0, text.length - keep), stopped: false };
    },
    flush() {
      const rest = done ? "" : held;
      held = "";
      return rest;
    },
  };
};
