import type { BlockFormat } from "./block-format.js";

/** `match` found a prefix of an opening tag at the end of the chunk: it is held back. */
export const HELD = "held";

/**
 * The opening-tag prefix held back at the end of a chunk (the only text the parser may delay),
 * and the matching of opening tags. Tags start with `<` and contain no other `<`.
 */
export class TagHoldback {
  /** Length of the held-back prefix of an opening tag (0: nothing held). */
  held = 0;
  /** A format whose tag has the held prefix (undefined while only `<` is held). */
  private candidate: BlockFormat | undefined;
  private readonly formats: ReadonlyArray<BlockFormat>;

  constructor(formats: ReadonlyArray<BlockFormat>) {
    this.formats = formats;
  }

  /** The held text, to give back as text. */
  text(): string {
    return this.candidate === undefined ? "<" : this.candidate.open.slice(0, this.held);
  }

  clear(): void {
    this.held = 0;
    this.candidate = undefined;
  }

  /** Starts holding a `<` (the caller checked that a block may start here). */
  holdLt(): void {
    this.held = 1;
    this.candidate = undefined;
  }

  /**
   * Extends the held prefix with `c`: the format whose whole tag is now matched, HELD while
   * still a prefix, or undefined when no tag continues so (the caller gives the text back).
   */
  extend(c: number): BlockFormat | typeof HELD | undefined {
    const next = this.continuing(c);
    if (next === undefined) return undefined;
    this.candidate = next;
    this.held += 1;
    if (this.held < next.open.length) return HELD;
    this.clear();
    return next;
  }

  /** A format whose opening tag continues the held prefix with `c`, if any. */
  private continuing(c: number): BlockFormat | undefined {
    const { candidate, held, formats } = this;
    if (candidate !== undefined && candidate.open.charCodeAt(held) === c) return candidate;
    for (let k = 0; k < formats.length; k += 1) {
      const f = formats[k] as BlockFormat;
      if (f.open.charCodeAt(held) !== c) continue;
      let same = true;
      for (let j = 1; j < held && same; j += 1)
        same = f.open.charCodeAt(j) === (candidate as BlockFormat).open.charCodeAt(j);
      if (same) return f;
    }
    return undefined;
  }

  /**
   * At a `<` where a block may start: the format whose opening tag follows in full, HELD when
   * the rest of the chunk is a prefix of a tag (now held), else undefined (text). Compares
   * against the rest of the chunk directly, no per-character state.
   */
  match(s: string, at: number): BlockFormat | typeof HELD | undefined {
    const formats = this.formats;
    let partial: BlockFormat | undefined;
    for (let f = 0; f < formats.length; f += 1) {
      const format = formats[f] as BlockFormat;
      const tag = format.open;
      let k = 1;
      while (k < tag.length && at + k < s.length && s.charCodeAt(at + k) === tag.charCodeAt(k)) k += 1;
      if (k === tag.length) return format;
      if (at + k === s.length) partial = format;
    }
    if (partial === undefined) return undefined;
    this.held = s.length - at;
    this.candidate = partial;
    return HELD;
  }
}
