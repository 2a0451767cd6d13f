/**
 * Append-only text with an optional "not yet emitted" tail. Appends are collected in an array
 * and joined every few KiB into one flat string: building text with `+=` one character at a
 * time leaves a rope with a ~30-byte node per character, and slicing one ever-growing string
 * per push would be quadratic. `take` only touches the (short) tail.
 */
export interface TextBuffer {
  append(s: string): void;
  readonly length: number;
  /** The text in [emitted, upTo); advances the emitted mark. Requires tail tracking. */
  take(upTo: number): string;
  /** Stop keeping the tail (nothing of this text will be streamed any more). */
  dropTail(): void;
  toString(): string;
}

const JOIN_PIECES = 512;
const JOIN_CHARS = 8192;

export function createTextBuffer(trackTail: boolean): TextBuffer {
  const parts: string[] = [];
  const pending: string[] = [];
  let pendingChars = 0;
  let length = 0;
  let tracking = trackTail;
  /** Appended since the last `take` (short: it is taken at every push). */
  let tail = "";
  let tailStart = 0;

  const seal = () => {
    if (pending.length === 0) return;
    parts.push(pending.length === 1 ? (pending[0] as string) : pending.join(""));
    pending.length = 0;
    pendingChars = 0;
  };

  return {
    append(s) {
      pending.push(s);
      pendingChars += s.length;
      length += s.length;
      if (pending.length >= JOIN_PIECES || pendingChars >= JOIN_CHARS) seal();
      if (tracking) tail += s;
    },
    get length() {
      return length;
    },
    take(upTo) {
      const n = upTo - tailStart;
      if (!tracking || n <= 0) return "";
      const text = tail;
      tail = text.length > n ? text.slice(n) : "";
      tailStart = upTo;
      return text.length > n ? text.slice(0, n) : text;
    },
    dropTail() {
      tracking = false;
      tail = "";
    },
    toString() {
      seal();
      if (parts.length > 1) {
        const joined = parts.join("");
        parts.length = 0;
        parts.push(joined);
      }
      return parts[0] ?? "";
    },
  };
}
