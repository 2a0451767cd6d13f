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

import { createValueElider, type ValueElider } from "./json-elide.js";

/** How many leading characters of a line `allowLarge`, `skip` and `elide` are shown. */
export const LINE_HEAD = 256;

/**
 * Newline framing for a JSON-lines stream, I/O-free. Lines longer than `maxLineLength` are
 * dropped whole (reported through `onDrop`, never fatal) and the decoder resynchronises on the
 * next newline, so one runaway message cannot exhaust memory or kill the connection. A line whose
 * first characters satisfy `allowLarge` (a message known to carry a whole answer) may grow to
 * `largeLineLength` instead. A line whose first characters satisfy `skip` (a message nobody reads)
 * is discarded as it streams, whatever its length: it is never held, joined or parsed. A line
 * whose first characters make `elide` name a member has that member's value cut out as it streams
 * (`null` instead, see json-elide.ts): a long value nobody reads is not held either.
 */
export const createLineDecoder = (options: {
  readonly maxLineLength: number;
  readonly largeLineLength?: number;
  readonly allowLarge?: (head: string) => boolean;
  readonly skip?: (head: string) => boolean;
  readonly elide?: (head: string) => string | undefined;
  readonly onDrop?: (dropped: DroppedLine) => void;
}): LineDecoder => {
  const text = new TextDecoder("utf-8");
  const large = Math.max(options.largeLineLength ?? options.maxLineLength, options.maxLineLength);
  let parts: string[] = [];
  let pending = 0;
  let head = "";
  /** The current line is thrown away up to its newline: oversized (reported) or skipped (not). */
  let discarding: "oversized" | "skipped" | undefined;
  let discarded = 0;
  const decides = options.skip !== undefined || options.elide !== undefined;
  /** `skip` and `elide` were asked about the current line. */
  let decided = !decides;
  let elider: ValueElider | undefined;

  const drop = (length: number) => options.onDrop?.({ reason: "oversized", length });
  /** The limit for the current line, decided once it is over the normal one (its head is known by then). */
  const fits = (length: number) =>
    length <= options.maxLineLength || (length <= large && options.allowLarge?.(head) === true);
  const reset = () => {
    parts = [];
    pending = 0;
    head = "";
    decided = !decides;
    elider = undefined;
  };
  /**
   * Extends the head with `segment` and decides, once (at `LINE_HEAD` chars or the line's end),
   * whether the line is skipped (true) or has a member cut out (the parts held so far go through
   * the elider then).
   */
  const skipped = (segment: string, ended: boolean): boolean => {
    if (head.length < LINE_HEAD) head += segment.slice(0, LINE_HEAD - head.length);
    if (decided || (!ended && head.length < LINE_HEAD)) return false;
    decided = true;
    if (options.skip?.(head) === true) return true;
    const key = options.elide?.(head);
    if (key !== undefined) {
      elider = createValueElider(key);
      const held = elider(parts.join(""));
      parts = held === "" ? [] : [held];
      pending = held.length;
    }
    return false;
  };
  const emit = (out: string[], segment: string) => {
    if (discarding !== undefined) {
      if (discarding === "oversized") drop(discarded + segment.length);
      discarding = undefined;
      discarded = 0;
      reset();
      return;
    }
    if (skipped(segment, true)) {
      reset();
      return;
    }
    const kept = elider ? elider(segment) : segment;
    const length = pending + kept.length;
    if (!fits(length)) {
      drop(length);
    } else {
      const line = (pending === 0 ? kept : parts.join("") + kept).replace(/\r$/, "");
      if (line.trim() !== "") out.push(line);
    }
    reset();
  };
  const hold = (segment: string) => {
    if (discarding !== undefined) {
      discarded += segment.length;
      return;
    }
    const skip = skipped(segment, false);
    const kept = skip || elider === undefined ? segment : elider(segment);
    const length = pending + kept.length;
    if (skip || !fits(length)) {
      discarding = skip ? "skipped" : "oversized";
      discarded = length;
      parts = [];
      pending = 0;
      return;
    }
    if (kept !== "") parts.push(kept);
    pending = length;
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
      if (discarding !== undefined || pending > 0) emit(out, "");
      return out;
    },
  };
};
