/**
 * Append-only text with an optional "not yet emitted" tail. Appending is amortised O(1) and
 * `take` only touches the tail, so streaming a long value in 1-char chunks stays linear
 * (slicing one ever-growing string per push would be quadratic).
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

const PART_SIZE = 4096;

export function createTextBuffer(trackTail: boolean): TextBuffer {
  const parts: string[] = [];
  let current = "";
  let length = 0;
  let tracking = trackTail;
  let tail = "";
  let tailStart = 0;
  return {
    append(s) {
      current += s;
      length += s.length;
      if (current.length >= PART_SIZE) {
        parts.push(current);
        current = "";
      }
      if (tracking) tail += s;
    },
    get length() {
      return length;
    },
    take(upTo) {
      const n = upTo - tailStart;
      if (!tracking || n <= 0) return "";
      const out = tail.slice(0, n);
      tail = tail.slice(n);
      tailStart = upTo;
      return out;
    },
    dropTail() {
      tracking = false;
      tail = "";
    },
    toString() {
      if (parts.length > 0 && current.length > 0) {
        parts.push(current);
        current = "";
      }
      if (parts.length > 1) {
        const joined = parts.join("");
        parts.length = 0;
        parts.push(joined);
      }
      return parts[0] ?? current;
    },
  };
}
