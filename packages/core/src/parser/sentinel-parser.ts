import type { AfterBlock, BlockContext } from "./call-stream.js";
import { advanceMatch, isHighSurrogate, isWhitespace } from "./chars.js";
import type { OpenBlock } from "./json-block.js";
import { openJsonBlock, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./json-block.js";
import type { MarkdownFence } from "./markdown-fence.js";
import { createMarkdownFence } from "./markdown-fence.js";
import type { ParserEvent, SentinelParser, SentinelParserOptions } from "./parser-types.js";
import { openUseToolBlock, USE_TOOL_CLOSE, USE_TOOL_OPEN } from "./use-tool-block.js";

export const DEFAULT_MAX_BLOCK_BYTES = 1024 * 1024;

const LT = 60;
const T = 116;
const U = 117;

/**
 * Streaming parser for one assistant message: plain text passes through at once, sentinel
 * blocks (`<tool_call>…</tool_call>`, `<use_tool>…</use_tool>`) become call events. Only a
 * suffix that may still become an opening tag is held back. Whitespace at the start of the
 * message and right after a call is dropped, so a tool-only answer carries no stray content.
 * Blocks inside Markdown code fences are text. Linear in the input; one open block is bounded by
 * `maxBlockBytes`.
 */
export function createSentinelParser(options: SentinelParserOptions): SentinelParser {
  let events: ParserEvent[] = [];
  let text = "";
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
        text += event.text;
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

  let mode: "text" | "block" | "passthrough" | "discard" = "text";
  let fence: MarkdownFence = createMarkdownFence();
  let dropWhitespace = true;
  /** Length of the held-back prefix of an opening tag; `heldTag` is "" while only `<` is known. */
  let held = 0;
  let heldTag = "";
  let block: OpenBlock | undefined;
  let blockClose = "";
  let skipMatched = 0;

  const releaseHeld = () => {
    text += heldTag === "" ? "<" : heldTag.slice(0, held);
    held = 0;
    heldTag = "";
    dropWhitespace = false;
  };

  /** Text mode: emits runs of text, returns where a block began (or s.length). */
  const scanText = (s: string, from: number): number => {
    let run = from;
    for (let i = from; i < s.length; i += 1) {
      const c = s.charCodeAt(i);
      fence.feed(c);
      if (held > 0) {
        const tag = heldTag !== "" ? heldTag : c === T ? TOOL_CALL_OPEN : c === U ? USE_TOOL_OPEN : "";
        if (tag !== "" && c === tag.charCodeAt(held)) {
          heldTag = tag;
          held += 1;
          run = i + 1;
          if (held === tag.length) {
            startBlock(tag);
            return i + 1;
          }
          continue;
        }
        releaseHeld();
        run = i;
      }
      if (c === LT && fence.blocksAllowed()) {
        text += s.slice(run, i);
        held = 1;
        run = i + 1;
      } else if (dropWhitespace) {
        if (isWhitespace(c)) run = i + 1;
        else dropWhitespace = false;
      }
    }
    text += s.slice(run);
    return s.length;
  };

  const startBlock = (tag: string) => {
    held = 0;
    heldTag = "";
    fence.midLine();
    mode = "block";
    block = tag === TOOL_CALL_OPEN ? openJsonBlock(ctx) : openUseToolBlock(ctx);
    blockClose = tag === TOOL_CALL_OPEN ? TOOL_CALL_CLOSE : USE_TOOL_CLOSE;
  };

  const endBlock = (after: AfterBlock) => {
    block = undefined;
    mode = after === "passthrough" || after === "discard" ? after : "text";
    dropWhitespace = after === "drop-whitespace";
    skipMatched = 0;
  };

  /** Rest of an oversized block, up to its close tag: forwarded as text or dropped. */
  const scanRest = (s: string, from: number): number => {
    let i = from;
    let closed = false;
    for (; i < s.length && !closed; i += 1) {
      skipMatched = advanceMatch(blockClose, skipMatched, s.charCodeAt(i));
      closed = skipMatched === blockClose.length;
    }
    if (mode === "passthrough") text += s.slice(from, i);
    if (closed) endBlock(mode === "passthrough" ? "text" : "drop-whitespace");
    return i;
  };

  const takeEvents = (final: boolean): ParserEvent[] => {
    // Never end a text event between the two halves of a surrogate pair.
    let carry = "";
    if (!final && text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      carry = text.slice(-1);
      text = text.slice(0, -1);
    }
    flushText();
    text = carry;
    const out = events;
    events = [];
    return out;
  };

  return {
    push(chunk) {
      let i = 0;
      while (i < chunk.length) {
        if (mode === "text") i = scanText(chunk, i);
        else if (mode === "block" && block) {
          i = block.feed(chunk, i);
          if (block.state() !== "open") endBlock(block.finish());
        } else i = scanRest(chunk, i);
      }
      return takeEvents(false);
    },
    flush() {
      if (mode === "text" && held > 0) releaseHeld();
      if (mode === "block" && block) block.finish();
      // The next message starts fresh; call indexes keep counting within this parser.
      block = undefined;
      mode = "text";
      fence = createMarkdownFence();
      dropWhitespace = true;
      return takeEvents(true);
    },
  };
}
