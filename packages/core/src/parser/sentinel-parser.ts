import { BLOCK_FORMATS, formatsProblem } from "../formats/index.js";
import type { ToolSpec } from "../model/tool-spec.js";
import type { BlockFormat, OpenBlock } from "./block-format.js";
import type { AfterBlock } from "./call-stream.js";
import { advanceMatch, isHighSurrogate, isWhitespace } from "./chars.js";
import { EventBatch } from "./event-batch.js";
import type { ArgumentsValidator, ParserEvent, ParserSink, SentinelParser } from "./parser-types.js";
import { PlainTextScanner } from "./plain-text-scan.js";
import { HELD, TagHoldback } from "./tag-holdback.js";

export const DEFAULT_MAX_BLOCK_BYTES = 1024 * 1024;

export interface SentinelParserOptions {
  /**
   * Tools the model may call in this turn, as a list or keyed by name. A block naming any other
   * tool is rejected; two tools of one name in a list are a TypeError (which one is meant?).
   */
  readonly tools: ReadonlyArray<ToolSpec> | ReadonlyMap<string, ToolSpec>;
  /** Schema validation for strict tools (hard) and soft tools (warning only). */
  readonly validator?: ArgumentsValidator | undefined;
  /** Max bytes one open block may buffer before it fails (default 1 MiB). */
  readonly maxBlockBytes?: number | undefined;
  /**
   * The block formats recognised in the text (default: all of them, whichever one was taught).
   * No opening tag may be a prefix of another's (a TypeError says which): see `blockFormatsReading`.
   */
  readonly formats?: ReadonlyArray<BlockFormat> | undefined;
}

const LT = 60;
const NL = 10;
/**
 * Pieces up to this long get the one-loop check first (codex tokens: p99 6 chars; a longer piece
 * more often holds a line break, and would be scanned twice).
 */
const TOKEN_CHUNK = 8;

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
 * `maxBlockBytes`. Plain text is skipped up to the next `<` or possible fence line (see
 * PlainTextScanner) and emitted by slicing; a chunk of plain text is answered with itself.
 */
export const createSentinelParser = (options: SentinelParserOptions): SentinelParser =>
  new StreamParser(options);

const toolsByName = (
  tools: ReadonlyArray<ToolSpec> | ReadonlyMap<string, ToolSpec>,
): ReadonlyMap<string, ToolSpec> => {
  if (!Array.isArray(tools)) return tools as ReadonlyMap<string, ToolSpec>;
  const byName = new Map<string, ToolSpec>();
  for (const tool of tools as ReadonlyArray<ToolSpec>) {
    if (byName.has(tool.name))
      throw new TypeError(`createSentinelParser: two tools are named "${tool.name}"`);
    byName.set(tool.name, tool);
  }
  return byName;
};

/** A class, not closures: the state of one parser, its scanners and the block being read. */
class StreamParser implements SentinelParser {
  private readonly out: EventBatch;
  private readonly scanner = new PlainTextScanner();
  private readonly holdback: TagHoldback;
  private mode = TEXT;
  private dropWhitespace = true;
  private block: OpenBlock | undefined;
  private blockClose = "";
  /** Matched length of the close tag while the rest of an oversized block is skipped. */
  private skipMatched = 0;
  /** Characters this message may still read again (see `OpenBlock.unread`): one block's worth. */
  private rereadBudget: number;
  private readonly maxBlockBytes: number;

  constructor(options: SentinelParserOptions) {
    this.out = new EventBatch(
      toolsByName(options.tools),
      options.validator,
      options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES,
    );
    const formats = options.formats ?? BLOCK_FORMATS;
    // Checked per parser: a few formats, compared pairwise once.
    const problem = options.formats === undefined ? undefined : formatsProblem(formats);
    if (problem !== undefined) throw new TypeError(`createSentinelParser: ${problem}`);
    this.holdback = new TagHoldback(formats);
    this.maxBlockBytes = options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES;
    this.rereadBudget = this.maxBlockBytes;
  }

  push(chunk: string): ParserEvent[] {
    if (this.plainPiece(chunk)) return [{ type: "text-delta", delta: chunk }];
    this.scan(chunk);
    return this.out.take(false);
  }

  pushTo(chunk: string, sink: ParserSink): void {
    if (this.plainPiece(chunk)) sink.text(chunk);
    else {
      this.scan(chunk);
      this.out.drainTo(sink, false);
    }
  }

  /**
   * A token-sized piece with nothing pending (codex sends one upstream token per push) is its own
   * text, unless it holds a `<` or a line break (the scan decides those): one loop. At a line
   * start the fence reads the piece's first characters first, as the scan would.
   */
  private plainPiece(chunk: string): boolean {
    if (chunk.length > TOKEN_CHUNK || this.mode !== TEXT || this.holdback.held !== 0 || this.dropWhitespace)
      return false;
    if (!this.out.empty()) return false;
    let k = 0;
    for (; k < chunk.length; k += 1) {
      const c = chunk.charCodeAt(k);
      if (c === LT || c === NL) return false;
    }
    if (k === 0 || isHighSurrogate(chunk.charCodeAt(k - 1))) return false;
    const fence = this.scanner.fence;
    for (let j = 0; j < chunk.length && fence.atLineStart(); j += 1) fence.feed(chunk.charCodeAt(j));
    return true;
  }

  /** Scans a chunk past the token-piece check; its events are left in `out`. */
  private scan(piece: string): void {
    const { out, scanner } = this;
    let chunk = piece;
    const plain = this.mode === TEXT && this.holdback.held === 0 && !this.dropWhitespace && out.empty();
    let i = 0;
    scanner.newChunk();
    if (plain) {
      // Plain text with nothing pending: a chunk where no block may start is one text run. A line
      // start is fed to the fence first (up to a `<`, which the general path decides).
      const fence = scanner.fence;
      while (i < chunk.length && fence.atLineStart() && chunk.charCodeAt(i) !== LT) {
        fence.feed(chunk.charCodeAt(i));
        i += 1;
      }
      if (!fence.atLineStart()) i = scanner.skipText(chunk, i);
      out.addText(i === chunk.length ? chunk : chunk.slice(0, i));
    }
    while (i < chunk.length) {
      const block = this.block;
      if (this.mode === TEXT) i = this.scanText(chunk, i);
      else if (this.mode === BLOCK && block) {
        i = block.feed(chunk, i);
        if (block.state() === "open") continue;
        this.endBlock(block.finish());
        const again = this.reread(block);
        if (again.length > 0) {
          chunk = again + chunk.slice(i);
          i = 0;
          scanner.newChunk();
        }
      } else i = this.scanRest(chunk, i);
    }
  }

  flush(): ParserEvent[] {
    this.end();
    return this.out.take(true);
  }

  flushTo(sink: ParserSink): void {
    this.end();
    this.out.drainTo(sink, true);
  }

  private end(): void {
    let block = this.mode === BLOCK ? this.block : undefined;
    while (block) {
      this.endBlock(block.finish());
      const again = this.reread(block);
      if (again.length > 0) this.scan(again);
      block = this.mode === BLOCK ? this.block : undefined;
    }
    if (this.mode === TEXT && this.holdback.held > 0) this.releaseHeld();
    // The next message starts fresh; call indexes keep counting within this parser.
    this.block = undefined;
    this.mode = TEXT;
    this.scanner.newMessage();
    this.dropWhitespace = true;
    this.rereadBudget = this.maxBlockBytes;
  }

  /**
   * What a finished block gives back to be read again, within the message's budget (one block's
   * worth in all, so scanning stays linear); past it, the text is only text.
   */
  private reread(block: OpenBlock): string {
    const again = block.unread?.() ?? "";
    if (again.length === 0) return "";
    if (again.length <= this.rereadBudget) {
      this.rereadBudget -= again.length;
      return again;
    }
    this.out.addText(again);
    this.dropWhitespace = false;
    return "";
  }

  private releaseHeld(): void {
    this.out.addText(this.holdback.text());
    this.holdback.clear();
    this.dropWhitespace = false;
  }

  /** Text mode: emits runs of text, returns where a block began (or s.length). */
  private scanText(s: string, from: number): number {
    const { out, scanner, holdback } = this;
    let run = from;
    let i = from;
    while (i < s.length) {
      const fence = scanner.fence;
      if (holdback.held === 0 && !this.dropWhitespace && !fence.atLineStart()) {
        i = scanner.skipText(s, i);
        if (i >= s.length) break;
        if (!fence.atLineStart()) {
          // A `<` mid-line where blocks are allowed (feeding it to the fence changes nothing).
          const found = holdback.match(s, i);
          if (found === undefined) {
            i += 1;
            continue;
          }
          out.addText(s.slice(run, i));
          if (found === HELD) return s.length;
          this.startBlock(found);
          return i + found.open.length;
        }
      }
      const c = s.charCodeAt(i);
      fence.feed(c);
      if (holdback.held > 0) {
        const next = holdback.extend(c);
        if (next !== undefined) {
          run = i + 1;
          i += 1;
          if (next === HELD) continue;
          this.startBlock(next);
          return i;
        }
        this.releaseHeld();
        run = i;
      }
      if (c === LT && fence.blocksAllowed()) {
        out.addText(s.slice(run, i));
        holdback.holdLt();
        run = i + 1;
      } else if (this.dropWhitespace) {
        if (isWhitespace(c)) run = i + 1;
        else this.dropWhitespace = false;
      }
      i += 1;
    }
    if (run < s.length) out.addText(s.slice(run));
    return s.length;
  }

  private startBlock(format: BlockFormat): void {
    this.holdback.clear();
    this.scanner.fence.midLine();
    this.mode = BLOCK;
    this.block = format.openBlock(this.out);
    this.blockClose = format.close;
  }

  private endBlock(after: AfterBlock): void {
    this.block = undefined;
    this.mode = after === "passthrough" ? PASSTHROUGH : after === "discard" ? DISCARD : TEXT;
    this.dropWhitespace = after === "drop-whitespace";
    this.skipMatched = 0;
  }

  /** Rest of an oversized block, up to its close tag: forwarded as text or dropped. */
  private scanRest(s: string, from: number): number {
    const close = this.blockClose;
    let i = from;
    let closed = false;
    while (i < s.length && !closed) {
      if (this.skipMatched === 0) {
        i = this.scanner.nextLt(s, i);
        if (i >= s.length) break;
      }
      this.skipMatched = advanceMatch(close, this.skipMatched, s.charCodeAt(i));
      closed = this.skipMatched === close.length;
      i += 1;
    }
    if (this.mode === PASSTHROUGH) this.out.addText(s.slice(from, i));
    if (closed) this.endBlock(this.mode === PASSTHROUGH ? "text" : "drop-whitespace");
    return i;
  }
}
