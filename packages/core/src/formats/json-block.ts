import type { ToolSpec } from "../model/tool-spec.js";
import type { OpenBlock } from "../parser/block-format.js";
import type { AfterBlock, BlockContext, CallStream } from "../parser/call-stream.js";
import { createCallStream, rejectBlock, schemaProblem } from "../parser/call-stream.js";
import { utf8Width } from "../parser/chars.js";
import { createStringRun, scanStringRun } from "../parser/json-string-run.js";
import { createTextBuffer } from "../parser/text-buffer.js";
import { customToolInput, decideJsonCall } from "./json-call-decision.js";
import type { ToolCallTokenizer } from "./tool-call-tokenizer.js";
import { createToolCallTokenizer, TOOL_CALL_CLOSE } from "./tool-call-tokenizer.js";

export const TOOL_CALL_OPEN = "<tool_call>";
export { TOOL_CALL_CLOSE };

/**
 * `<tool_call>{"name": …, "arguments": …}</tool_call>` (or between other tags): tokenizes the outer object as it
 * arrives and streams the committed part of the arguments once the name is a known soft tool.
 * The close tag ends the block anywhere except inside a string of the arguments, so a model
 * may write `</tool_call>` inside an argument value. When such a block does not read as one
 * whole call, the model most likely left a string open: the block is taken to end at that inner
 * close tag (it is not a call) and what follows is read again as text, so a valid block after it
 * is not lost. Several objects in one block are one call each.
 */
export const openJsonBlock =
  (tags: JsonBlockTags) =>
  (ctx: BlockContext): OpenBlock =>
    new JsonBlockReader(ctx, tags);

/** A format's delimiters; the close tag's first character appears nowhere else in it. */
export interface JsonBlockTags {
  readonly open: string;
  readonly close: string;
}

/** A known soft tool that is not custom: its arguments stream while the block is read. */
const streamable = (tools: ReadonlyMap<string, ToolSpec>, name: string | undefined): boolean => {
  const tool = name === undefined ? undefined : tools.get(name);
  return tool !== undefined && !tool.strict && tool.custom !== true;
};

/** A class, not closures: one per block (closure creation is not free, more so with keepNames). */
class JsonBlockReader implements OpenBlock {
  private readonly ctx: BlockContext;
  private readonly open: string;
  private readonly close: string;
  /** The close tag's first character: only it may start a close match. */
  private readonly closeFirst: number;
  /** The current object's text (from the open tag, or from its `{` for a later object). */
  private raw = createTextBuffer(false);
  /** What the current object's raw text starts with (the open tag for the first object). */
  private opened: string;
  private bytes = 0;
  private status: "open" | "closed" | "too-large" = "open";
  private closeMatched = 0;
  private call: CallStream | undefined;
  private tokens: ToolCallTokenizer;
  /** Text after an inner close tag taken as the block's end, to be read again as text. */
  private rest = "";
  /** Whether the named tool's arguments stream (decided once, when the name is known). */
  private streams: boolean | undefined;
  private readonly run = createStringRun();
  /** Whether the arguments are known to be a slice of `raw` or not (see `mirrorArguments`). */
  private argumentsChecked = false;

  constructor(ctx: BlockContext, tags: JsonBlockTags) {
    this.ctx = ctx;
    this.open = tags.open;
    this.close = tags.close;
    this.closeFirst = tags.close.charCodeAt(0);
    this.opened = tags.open;
    this.tokens = createToolCallTokenizer((name) => streamable(ctx.tools, name));
  }

  private toolOf(name: string | undefined): ToolSpec | undefined {
    return name === undefined ? undefined : this.ctx.tools.get(name);
  }

  private replayCloseMatch(): void {
    const k = this.closeMatched;
    const close = this.close;
    this.closeMatched = 0;
    for (let j = 0; j < k; j += 1) this.tokens.token(close[j] as string, close.charCodeAt(j));
  }

  /**
   * Arguments written as an object are the block's own text from their `{` (`at` in `raw`) on,
   * except where the validator escapes a raw control character (it diverges there): they are not
   * kept twice. `raw` gets this push's text at its end, before anything reads the arguments.
   */
  private mirrorArguments(at: number): void {
    const text = this.tokens.objectArgumentsText();
    // Arguments written as a string (decoded text) are never a slice: no need to look again.
    if (text === undefined) this.argumentsChecked = this.tokens.argumentsText() !== undefined;
    else {
      text.mirror(this.raw, at);
      this.argumentsChecked = true;
    }
  }

  /** Streams whatever became committed, once the name is known to be a soft tool. */
  private pump(): void {
    if (this.streams === undefined) {
      const name = this.tokens.name();
      if (name === undefined) return;
      this.streams = streamable(this.ctx.tools, name);
    }
    if (!this.streams) return;
    const fragment = this.tokens.takeCommitted();
    if (fragment.length === 0) return;
    this.call ??= createCallStream(this.ctx, this.tokens.name() as string, this.tokens.argumentsText());
    this.call.delta(fragment);
  }

  /** The object before `s[at]` (a `{` starting another object) is finished; the next begins. */
  private nextObject(s: string, from: number, at: number): void {
    this.raw.append(s.slice(from, at));
    this.pump();
    const written = this.raw.toString();
    this.decide("closed", written, this.opened + written);
    this.raw = createTextBuffer(false);
    this.opened = "";
    this.call = undefined;
    this.streams = undefined;
    this.argumentsChecked = false;
    this.tokens = createToolCallTokenizer((name) => streamable(this.ctx.tools, name));
    this.tokens.token("{", 123);
  }

  feed(s: string, start: number): number {
    let tokens = this.tokens;
    const run = this.run;
    const max = this.ctx.maxBlockBytes;
    const close = this.close;
    const closeFirst = this.closeFirst;
    let from = start;
    let i = start;
    for (; i < s.length; i += 1) {
      // Fast path: string content (file contents) is appended run by run, escapes included.
      // Inside a string the close tag cannot occur, so only quotes, control characters, cut-off
      // escapes and the byte budget end a run; those take the path below, one character each.
      const target = this.closeMatched === 0 ? tokens.plainStringTarget() : undefined;
      if (target) {
        scanStringRun(s, i, max - this.bytes, tokens.argumentsEncoded(), run);
        if (run.end > i) {
          target.feedStringRun(run.text, run.openSurrogates);
          this.bytes += run.bytes;
          i = run.end - 1;
          continue;
        }
      }
      const c = s.charCodeAt(i);
      this.bytes += utf8Width(c);
      if (this.bytes > max) {
        this.status = "too-large";
        break;
      }
      if (this.closeMatched > 0 || (c === closeFirst && tokens.closeTagPossible())) {
        if (c === close.charCodeAt(this.closeMatched)) {
          this.closeMatched += 1;
          if (this.closeMatched === close.length) {
            this.status = "closed";
            i += 1;
            break;
          }
          continue;
        }
        this.replayCloseMatch();
        if (c === closeFirst && tokens.closeTagPossible()) {
          this.closeMatched = 1;
          continue;
        }
      }
      if (!tokens.failed()) tokens.token(s[i] as string, c);
      if (c !== 123) continue;
      if (tokens.nextObject()) {
        this.nextObject(s, from, i);
        tokens = this.tokens;
        from = i;
      } else if (!this.argumentsChecked) this.mirrorArguments(this.raw.length + i - from);
    }
    this.raw.append(from === 0 && i === s.length ? s : s.slice(from, i));
    this.pump();
    return i;
  }

  state(): "open" | "closed" | "too-large" {
    return this.status;
  }

  unread(): string {
    return this.rest;
  }

  finish(): AfterBlock {
    const status = this.status;
    if (status === "open") this.replayCloseMatch();
    this.pump();
    const written = this.raw.toString();
    const body = status === "closed" ? written.slice(0, -this.close.length) : written;
    const end = this.innerEnd(body);
    if (end >= 0 && !this.readsWhole(status, body)) return this.endAt(end, written);
    return this.decide(status, body, this.opened + written);
  }

  /**
   * Where a block that holds a tag inside would end had the model left a string open there: after
   * its first inner close tag or before its first inner open tag, whichever comes first (-1: none).
   */
  private innerEnd(body: string): number {
    const close = body.indexOf(this.close);
    const open = body.indexOf(this.open);
    if (open >= 0 && (close < 0 || open < close + this.close.length)) return open;
    return close < 0 ? -1 : close + this.close.length;
  }

  /**
   * A block that is one clean call (raw control characters aside), closed or complete when the
   * stream ended: the tags inside its strings are text.
   */
  private readsWhole(status: "open" | "closed" | "too-large", body: string): boolean {
    if (status === "too-large") return false;
    const snapshot = this.tokens.snapshot(body);
    const args = snapshot.arguments;
    return (
      snapshot.outerComplete && (args === undefined || (args.status === "complete" && !args.literalized))
    );
  }

  /** The block is taken to end after `end` characters of its text: not a call; the rest is text again. */
  private endAt(end: number, written: string): AfterBlock {
    const raw = this.opened + written.slice(0, end);
    const name = this.tokens.name();
    const strict = this.toolOf(name)?.strict === true;
    const detail = `the block is not valid JSON up to the tag inside it, taken as its end`;
    if (this.call) this.call.abandon("invalid-json", detail, raw);
    else rejectBlock(this.ctx, "invalid-json", strict, detail, raw, name);
    this.rest = written.slice(end);
    return strict ? "drop-whitespace" : "text";
  }

  private decide(status: "open" | "closed" | "too-large", body: string, blockRaw: string): AfterBlock {
    const ctx = this.ctx;
    const tokens = this.tokens;
    const call = this.call;
    const name = tokens.name();
    const strict = this.toolOf(name)?.strict === true;
    if (status === "too-large") {
      const detail = `the block exceeds ${ctx.maxBlockBytes} bytes`;
      if (call) call.abandon("block-too-large", detail, blockRaw);
      else rejectBlock(ctx, "block-too-large", strict, detail, blockRaw, name);
      return strict ? "discard" : "passthrough";
    }
    const snapshot = tokens.snapshot(body);
    // Without its close tag a block is a call only if its JSON object closed: anything else
    // may be a cut-off call, and a repaired prefix would be a shortened one.
    if (status === "open" && !snapshot.outerComplete) {
      const detail = `the stream ended inside ${this.open}`;
      if (call) call.abandon("unterminated", detail, blockRaw);
      else rejectBlock(ctx, "unterminated", strict, detail, blockRaw, name);
      return strict ? "drop-whitespace" : "text";
    }
    if (call) {
      const decision = decideJsonCall(snapshot, true);
      if (!decision.ok) {
        call.abandon("invalid-json", decision.detail, blockRaw);
        return "text";
      }
      const ended = call.finish({
        arguments: decision.arguments,
        extendsStreamed: decision.fromStreamedText === true,
        repaired: decision.repaired,
        raw: blockRaw,
        format: "json",
      });
      return ended ? "drop-whitespace" : "text";
    }
    // A custom tool's raw input may come as `{"name": …, "input": "…"}` (models fall back to it).
    const input =
      name !== undefined && this.toolOf(name)?.custom ? customToolInput(body, !strict) : undefined;
    if (name !== undefined && input !== undefined) {
      const args = JSON.stringify({ input });
      createCallStream(ctx, name).finish({ arguments: args, repaired: false, raw: blockRaw, format: "json" });
      return "drop-whitespace";
    }
    const decision = decideJsonCall(snapshot, !strict);
    if (!decision.ok) {
      rejectBlock(ctx, "invalid-json", strict, decision.detail, blockRaw, decision.name);
      return strict ? "drop-whitespace" : "text";
    }
    const chosen = ctx.tools.get(decision.name);
    if (!chosen) {
      rejectBlock(ctx, "unknown-tool", false, `unknown tool "${decision.name}"`, blockRaw, decision.name);
      return "text";
    }
    if (chosen.strict) {
      const problem = decision.repaired
        ? "arguments needed repair"
        : schemaProblem(ctx, decision.name, decision.arguments);
      if (problem !== undefined) {
        const reason = decision.repaired ? "invalid-json" : "schema-mismatch";
        rejectBlock(ctx, reason, true, problem, blockRaw, decision.name);
        return "drop-whitespace";
      }
    }
    createCallStream(ctx, decision.name).finish({
      arguments: decision.arguments,
      repaired: decision.repaired,
      raw: blockRaw,
      format: "json",
    });
    return "drop-whitespace";
  }
}
