/**
 * Append-only text with an optional "not yet emitted" tail. Appends are concatenated into a
 * short rope (cheapest for token-sized pieces), those ropes collected in an array and joined
 * every few KiB into one flat string: a long rope keeps a ~30-byte node per piece, and slicing
 * one ever-growing string per push would be quadratic. `take` only touches the (short) tail.
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

/** Pieces are concatenated up to this length before they go to the array (bounds the rope). */
const ROPE_CHARS = 256;
const JOIN_PIECES = 512;
const JOIN_CHARS = 8192;

/** A class, not closures: a block creates a few of these, and closures cost an object each. */
class ChunkedText implements TextBuffer {
  private readonly parts: string[] = [];
  private readonly pending: string[] = [];
  private pendingChars = 0;
  private rope = "";
  private total = 0;
  /** Appended since the last `take` (short: it is taken at every push). */
  private tail = "";
  private tailStart = 0;
  private tracking: boolean;

  constructor(tracking: boolean) {
    this.tracking = tracking;
  }

  private sealRope(): void {
    if (this.rope.length === 0) return;
    this.pending.push(this.rope);
    this.pendingChars += this.rope.length;
    this.rope = "";
  }

  private seal(): void {
    this.sealRope();
    const pending = this.pending;
    if (pending.length === 0) return;
    this.parts.push(pending.length === 1 ? (pending[0] as string) : pending.join(""));
    pending.length = 0;
    this.pendingChars = 0;
  }

  append(s: string): void {
    this.total += s.length;
    if (s.length === 1 && this.rope.length === 0) {
      // A one-char string is one of V8's cached ones: kept as is, concatenating would allocate.
      this.pending.push(s);
      this.pendingChars += 1;
    } else {
      this.rope += s;
      if (this.rope.length >= ROPE_CHARS) this.sealRope();
    }
    if (this.pending.length >= JOIN_PIECES || this.pendingChars >= JOIN_CHARS) this.seal();
    if (this.tracking) this.tail += s;
  }

  get length(): number {
    return this.total;
  }

  take(upTo: number): string {
    const n = upTo - this.tailStart;
    if (!this.tracking || n <= 0) return "";
    const text = this.tail;
    this.tail = text.length > n ? text.slice(n) : "";
    this.tailStart = upTo;
    return text.length > n ? text.slice(0, n) : text;
  }

  dropTail(): void {
    this.tracking = false;
    this.tail = "";
  }

  toString(): string {
    this.seal();
    const parts = this.parts;
    if (parts.length > 1) {
      const joined = parts.join("");
      parts.length = 0;
      parts.push(joined);
    }
    return parts[0] ?? "";
  }
}

export const createTextBuffer = (trackTail: boolean): TextBuffer => new ChunkedText(trackTail);
