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
 * `<tool_call>{"name": …, "arguments": …}</tool_call>`: tokenizes the outer object as it
 * arrives and streams the committed part of the arguments once the name is a known soft tool.
 * The close tag ends the block anywhere except inside a string of the arguments, so a model
 * may write `</tool_call>` inside an argument value.
 */
export const openJsonBlock = (ctx: BlockContext): OpenBlock => new JsonBlockReader(ctx);

/** A known soft tool that is not custom: its arguments stream while the block is read. */
const streamable = (tools: ReadonlyMap<string, ToolSpec>, name: string | undefined): boolean => {
  const tool = name === undefined ? undefined : tools.get(name);
  return tool !== undefined && !tool.strict && tool.custom !== true;
};

/** A class, not closures: one per block (closure creation is not free, more so with keepNames). */
class JsonBlockReader implements OpenBlock {
  private readonly ctx: BlockContext;
  private readonly raw = createTextBuffer(false);
  private bytes = 0;
  private status: "open" | "closed" | "too-large" = "open";
  private closeMatched = 0;
  private call: CallStream | undefined;
  private readonly tokens: ToolCallTokenizer;
  /** Whether the named tool's arguments stream (decided once, when the name is known). */
  private streams: boolean | undefined;
  private readonly run = createStringRun();
  /** Whether the arguments are known to be a slice of `raw` or not (see `mirrorArguments`). */
  private argumentsChecked = false;

  constructor(ctx: BlockContext) {
    this.ctx = ctx;
    this.tokens = createToolCallTokenizer((name) => streamable(ctx.tools, name));
  }

  private toolOf(name: string | undefined): ToolSpec | undefined {
    return name === undefined ? undefined : this.ctx.tools.get(name);
  }

  private replayCloseMatch(): void {
    const k = this.closeMatched;
    this.closeMatched = 0;
    for (let j = 0; j < k; j += 1)
      this.tokens.token(TOOL_CALL_CLOSE[j] as string, TOOL_CALL_CLOSE.charCodeAt(j));
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

  feed(s: string, start: number): number {
    const tokens = this.tokens;
    const run = this.run;
    const max = this.ctx.maxBlockBytes;
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
      if (this.closeMatched > 0 || (c === 60 && tokens.closeTagPossible())) {
        if (c === TOOL_CALL_CLOSE.charCodeAt(this.closeMatched)) {
          this.closeMatched += 1;
          if (this.closeMatched === TOOL_CALL_CLOSE.length) {
            this.status = "closed";
            i += 1;
            break;
          }
          continue;
        }
        this.replayCloseMatch();
        if (c === 60 && tokens.closeTagPossible()) {
          this.closeMatched = 1;
          continue;
        }
      }
      if (!tokens.failed()) tokens.token(s[i] as string, c);
      if (c === 123 && !this.argumentsChecked) this.mirrorArguments(this.raw.length + i - start);
    }
    this.raw.append(start === 0 && i === s.length ? s : s.slice(start, i));
    this.pump();
    return i;
  }

  state(): "open" | "closed" | "too-large" {
    return this.status;
  }

  finish(): AfterBlock {
    const ctx = this.ctx;
    const tokens = this.tokens;
    const call = this.call;
    const status = this.status;
    if (status === "open") this.replayCloseMatch();
    this.pump();
    const written = this.raw.toString();
    const body = status === "closed" ? written.slice(0, -TOOL_CALL_CLOSE.length) : written;
    const blockRaw = TOOL_CALL_OPEN + written;
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
      const detail = `the stream ended inside ${TOOL_CALL_OPEN}`;
      if (call) call.abandon("unterminated", detail, blockRaw);
      else rejectBlock(ctx, "unterminated", strict, detail, blockRaw, name);
      return strict ? "drop-whitespace" : "text";
    }
    if (call) {
      const decision = decideJsonCall(snapshot, true);
      call.finish({
        arguments: decision.ok ? decision.arguments : "",
        extendsStreamed: decision.ok && decision.fromStreamedText === true,
        repaired: !decision.ok || decision.repaired,
        raw: blockRaw,
        format: "json",
      });
      return "drop-whitespace";
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
