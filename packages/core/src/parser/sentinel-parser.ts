import { BLOCK_FORMATS } from "../formats/index.js";
import type { ToolSpec } from "../model/tool-spec.js";
import type { BlockFormat, OpenBlock } from "./block-format.js";
import type { AfterBlock, BlockContext } from "./call-stream.js";
import { advanceMatch, isHighSurrogate, isWhitespace, nextOf } from "./chars.js";
import type { MarkdownFence } from "./markdown-fence.js";
import { createMarkdownFence } from "./markdown-fence.js";
import type { ArgumentsValidator, ParserEvent, SentinelParser } from "./parser-types.js";

export const DEFAULT_MAX_BLOCK_BYTES = 1024 * 1024;

export interface SentinelParserOptions {
  /** Tools the model may call in this turn. A block naming any other tool is rejected. */
  readonly tools: ReadonlyMap<string, ToolSpec>;
  /** Schema validation for strict tools (hard) and soft tools (warning only). */
  readonly validator?: ArgumentsValidator | undefined;
  /** Max bytes one open block may buffer before it fails (default 1 MiB). */
  readonly maxBlockBytes?: number | undefined;
  /** The block formats recognised in the text (default: all of them, whichever one was taught). */
  readonly formats?: ReadonlyArray<BlockFormat> | undefined;
}

const LT = 60;
const SPACE = 32;
const BACKTICK = 96;
const TILDE = 126;

/** Returned by a push that produced nothing (most pushes inside a block): no allocation. */
const NO_EVENTS: ParserEvent[] = Object.freeze([]) as unknown as ParserEvent[];

const TEXT = 0;
const BLOCK = 1;
const PASSTHROUGH = 2;
const DISCARD = 3;

/**
 * Streaming parser for one assistant message: plain text passes through at once, blocks of the
 * given formats (`<tool_call>…</tool_call>`, `<use_tool>…</use_tool>`) become call events. Only a
 * suffix that may still become an opening tag is held back. Whitespace at the start of the
 * message and right after a call is dropped, so a tool-only answer carries no stray content.
 * Blocks inside Markdown code fences are text. Linear in the input; one open block is bounded by
 * `maxBlockBytes`. Plain text is skipped with `indexOf` up to the next `<` or possible fence
 * line (the only places that can start a tag or change the fence state) and emitted by slicing.
 */
export function createSentinelParser(options: SentinelParserOptions): SentinelParser {
  const formats = options.formats ?? BLOCK_FORMATS;
  let events: ParserEvent[] = [];
  let text = "";
  /** The last character added to `text` is a high surrogate (read from the piece, not the rope). */
  let textEndsHigh = false;
  const addText = (piece: string) => {
    if (piece.length === 0) return;
    text += piece;
    textEndsHigh = isHighSurrogate(piece.charCodeAt(piece.length - 1));
  };
  let callCount = 0;

  const flushText = () => {
    if (text.length === 0) return;
    events.push({ type: "text", text });
    text = "";
  };
  const ctx: BlockContext = {
    tools: options.tools,
    validator: options.validator,
    maxBlockBytes: options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES,
    emit(event) {
      if (event.type === "text") {
        addText(event.text);
        return;
      }
      flushText();
      events.push(event);
    },
    nextIndex: () => {
      callCount += 1;
      return callCount - 1;
    },
  };

  let mode = TEXT;
  let fence: MarkdownFence = createMarkdownFence();
  let dropWhitespace = true;
  /** Length of the held-back prefix of an opening tag, and a format whose tag has that prefix. */
  let held = 0;
  let candidate: BlockFormat | undefined;
  let block: OpenBlock | undefined;
  let blockClose = "";
  let skipMatched = 0;
  const heldText = () => (candidate === undefined ? "<" : candidate.open.slice(0, held));

  const releaseHeld = () => {
    addText(heldText());
    held = 0;
    candidate = undefined;
    dropWhitespace = false;
  };

  /** A format whose opening tag continues the held prefix with `c`, if any. */
  const extendHeld = (c: number): BlockFormat | undefined => {
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
  };

  /** Next `<` and line break in the current chunk at or after the scan position (cached: linear). */
  let ltAt = -1;
  let nlAt = -1;

  /**
   * Skips plain text from `from`: stops at a `<` or at a line break that may start a fence line
   * (at most 3 spaces, then a backtick or tilde, or the chunk ends first); other lines only reset
   * the fence's per-line state. Each `<` and line break of a chunk is found once, by `indexOf`.
   */
  const skipPlain = (s: string, from: number): number => {
    if (ltAt < from) ltAt = nextOf(s, "<", from);
    if (nlAt < from) nlAt = nextOf(s, "\n", from);
    let sawLine = false;
    let end = ltAt;
    while (nlAt < ltAt) {
      const at = nlAt;
      let k = at + 1;
      while (k < s.length && k <= at + 3 && s.charCodeAt(k) === SPACE) k += 1;
      const d = k < s.length ? s.charCodeAt(k) : BACKTICK;
      if (d === BACKTICK || d === TILDE) {
        end = at;
        break;
      }
      sawLine = true;
      nlAt = nextOf(s, "\n", at + 1);
    }
    if (sawLine) fence.skippedLines();
    return end;
  };

  /**
   * Skips plain text mid-line from `from`, through fence lines and `<`s that cannot open a block
   * (inside a fence). Stops at a `<` that may open one (mid-line), at a line start the fence is
   * still reading when a `<` follows (the caller feeds it), or at the end of the chunk.
   */
  const skipText = (s: string, from: number): number => {
    let i = from;
    for (;;) {
      i = skipPlain(s, i);
      if (i >= s.length) return i;
      if (s.charCodeAt(i) === LT) {
        if (fence.blocksAllowed()) return i;
        i += 1;
        continue;
      }
      i = fence.feedLineStart(s, i);
      if (i >= s.length || fence.atLineStart()) return i;
    }
  };

  /**
   * At a `<` where a block may start: the format whose opening tag follows in full (the block
   * starts), or one whose tag the rest of the chunk is a prefix of (held back), else text.
   * Compares against the rest of the chunk directly, no per-character state.
   */
  const matchTag = (s: string, at: number): number => {
    let partial: BlockFormat | undefined;
    for (let f = 0; f < formats.length; f += 1) {
      const format = formats[f] as BlockFormat;
      const tag = format.open;
      let k = 1;
      while (k < tag.length && at + k < s.length && s.charCodeAt(at + k) === tag.charCodeAt(k)) k += 1;
      if (k === tag.length) {
        startBlock(format);
        return at + k;
      }
      if (at + k === s.length) partial = format;
    }
    if (partial === undefined) return -1;
    held = s.length - at;
    candidate = partial;
    return s.length;
  };

  /** Text mode: emits runs of text, returns where a block began (or s.length). */
  const scanText = (s: string, from: number): number => {
    let run = from;
    let i = from;
    while (i < s.length) {
      if (held === 0 && !dropWhitespace && !fence.atLineStart()) {
        i = skipText(s, i);
        if (i >= s.length) break;
        if (!fence.atLineStart()) {
          // A `<` mid-line where blocks are allowed (feeding it to the fence changes nothing).
          const end = matchTag(s, i);
          if (end >= 0) {
            addText(s.slice(run, i));
            return end;
          }
          i += 1;
          continue;
        }
      }
      const c = s.charCodeAt(i);
      fence.feed(c);
      if (held > 0) {
        const next = extendHeld(c);
        if (next !== undefined) {
          candidate = next;
          held += 1;
          run = i + 1;
          i += 1;
          if (held === next.open.length) {
            startBlock(next);
            return i;
          }
          continue;
        }
        releaseHeld();
        run = i;
      }
      if (c === LT && fence.blocksAllowed()) {
        addText(s.slice(run, i));
        held = 1;
        run = i + 1;
      } else if (dropWhitespace) {
        if (isWhitespace(c)) run = i + 1;
        else dropWhitespace = false;
      }
      i += 1;
    }
    if (run < s.length) addText(s.slice(run));
    return s.length;
  };

  const startBlock = (format: BlockFormat) => {
    held = 0;
    candidate = undefined;
    fence.midLine();
    mode = BLOCK;
    block = format.openBlock(ctx);
    blockClose = format.close;
  };

  const endBlock = (after: AfterBlock) => {
    block = undefined;
    mode = after === "passthrough" ? PASSTHROUGH : after === "discard" ? DISCARD : TEXT;
    dropWhitespace = after === "drop-whitespace";
    skipMatched = 0;
  };

  /** Rest of an oversized block, up to its close tag: forwarded as text or dropped. */
  const scanRest = (s: string, from: number): number => {
    let i = from;
    let closed = false;
    while (i < s.length && !closed) {
      if (skipMatched === 0) {
        if (ltAt < i) ltAt = nextOf(s, "<", i);
        i = ltAt;
        if (i >= s.length) break;
      }
      skipMatched = advanceMatch(blockClose, skipMatched, s.charCodeAt(i));
      closed = skipMatched === blockClose.length;
      i += 1;
    }
    if (mode === PASSTHROUGH) addText(s.slice(from, i));
    if (closed) endBlock(mode === PASSTHROUGH ? "text" : "drop-whitespace");
    return i;
  };

  const takeEvents = (final: boolean): ParserEvent[] => {
    // Never end a text event between the two halves of a surrogate pair.
    let carry = "";
    if (!final && text.length > 0 && textEndsHigh) {
      carry = text.slice(-1);
      text = text.slice(0, -1);
    }
    flushText();
    text = carry;
    if (events.length === 0) return NO_EVENTS;
    const out = events;
    events = [];
    return out;
  };

  return {
    push(chunk) {
      let i = 0;
      ltAt = -1;
      nlAt = -1;
      if (mode === TEXT && held === 0 && !dropWhitespace && text.length === 0 && !fence.atLineStart()) {
        // Mid-line plain text with nothing pending: a chunk where no block may start is one event.
        i = skipText(chunk, 0);
        if (i === chunk.length && i > 0 && !isHighSurrogate(chunk.charCodeAt(i - 1)))
          return [{ type: "text", text: chunk }];
        addText(chunk.slice(0, i));
      }
      while (i < chunk.length) {
        if (mode === TEXT) i = scanText(chunk, i);
        else if (mode === BLOCK && block) {
          i = block.feed(chunk, i);
          if (block.state() !== "open") endBlock(block.finish());
        } else i = scanRest(chunk, i);
      }
      return takeEvents(false);
    },
    flush() {
      if (mode === TEXT && held > 0) releaseHeld();
      if (mode === BLOCK && block) block.finish();
      // The next message starts fresh; call indexes keep counting within this parser.
      block = undefined;
      mode = TEXT;
      fence = createMarkdownFence();
      dropWhitespace = true;
      return takeEvents(true);
    },
  };
}
