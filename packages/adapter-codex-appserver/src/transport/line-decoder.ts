/** Why a line was dropped rather than delivered. */
export interface DroppedLine {
  readonly reason: "oversized";
  /** Characters seen for that line (at least its limit + 1). */
  readonly length: number;
}

export interface LineDecoder {
  /** Feed bytes; returns the complete, non-empty lines they finished (without `\n` / `\r\n`). */
  push(chunk: Uint8Array | string): string[];
  /** End of stream: the unterminated tail, if any (usually a truncated message). */
  flush(): string[];
}

/** How many leading characters of a line `allowLarge` is shown. */
const HEAD = 64;

/**
 * Newline framing for a JSON-lines stream, I/O-free. Lines longer than `maxLineLength` are
 * dropped whole (reported through `onDrop`, never fatal) and the decoder resynchronises on the
 * next newline, so one runaway message cannot exhaust memory or kill the connection. A line whose
 * first characters satisfy `allowLarge` (a message known to carry a whole answer) may grow to
 * `largeLineLength` instead.
 */
export const createLineDecoder = (options: {
  readonly maxLineLength: number;
  readonly largeLineLength?: number;
  readonly allowLarge?: (head: string) => boolean;
  readonly onDrop?: (dropped: DroppedLine) => void;
}): LineDecoder => {
  const text = new TextDecoder("utf-8");
  const large = Math.max(options.largeLineLength ?? options.maxLineLength, options.maxLineLength);
  let parts: string[] = [];
  let pending = 0;
  let head = "";
  let discarding = false;
  let discarded = 0;

  const drop = (length: number) => options.onDrop?.({ reason: "oversized", length });
  /** The limit for the current line, decided once it is over the normal one (its head is known by then). */
  const fits = (length: number, segment: string) => {
    if (length <= options.maxLineLength) return true;
    const start = head.length < HEAD ? head + segment.slice(0, HEAD - head.length) : head;
    return length <= large && options.allowLarge?.(start) === true;
  };
  const reset = () => {
    parts = [];
    pending = 0;
    head = "";
  };
  const emit = (out: string[], segment: string) => {
    if (discarding) {
      drop(discarded + segment.length);
      discarding = false;
      discarded = 0;
      return;
    }
    if (!fits(pending + segment.length, segment)) {
      drop(pending + segment.length);
    } else {
      const line = (parts.join("") + segment).replace(/\r$/, "");
      if (line.trim() !== "") out.push(line);
    }
    reset();
  };
  const hold = (segment: string) => {
    if (discarding) {
      discarded += segment.length;
      return;
    }
    if (!fits(pending + segment.length, segment)) {
      discarding = true;
      discarded = pending + segment.length;
      reset();
      return;
    }
    if (head.length < HEAD) head += segment.slice(0, HEAD - head.length);
    parts.push(segment);
    pending += segment.length;
  };

  return {
    push(chunk) {
      const str = typeof chunk === "string" ? chunk : text.decode(chunk, { stream: true });
      const out: string[] = [];
      let start = 0;
      for (let nl = str.indexOf("\n"); nl !== -1; nl = str.indexOf("\n", start)) {
        emit(out, str.slice(start, nl));
        start = nl + 1;
      }
      if (start < str.length) hold(str.slice(start));
      return out;
    },
    flush() {
      const tail = text.decode();
      if (tail !== "") hold(tail);
      const out: string[] = [];
      if (discarding || pending > 0) emit(out, "");
      return out;
    },
  };
};
