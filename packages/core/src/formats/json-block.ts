import type { OpenBlock } from "../parser/block-format.js";
import type { AfterBlock, BlockContext, CallStream } from "../parser/call-stream.js";
import { createCallStream, rejectBlock, schemaProblem } from "../parser/call-stream.js";
import { nextOf, utf8Width } from "../parser/chars.js";
import { createTextBuffer } from "../parser/text-buffer.js";
import { customToolInput, decideJsonCall } from "./json-call-decision.js";
import { createToolCallTokenizer, TOOL_CALL_CLOSE } from "./tool-call-tokenizer.js";

export const TOOL_CALL_OPEN = "<tool_call>";
export { TOOL_CALL_CLOSE };

/**
 * `<tool_call>{"name": …, "arguments": …}</tool_call>`: tokenizes the outer object as it
 * arrives and streams the committed part of the arguments once the name is a known soft tool.
 * The close tag ends the block anywhere except inside a string of the arguments, so a model
 * may write `</tool_call>` inside an argument value.
 */
export function openJsonBlock(ctx: BlockContext): OpenBlock {
  const raw = createTextBuffer(false);
  let bytes = 0;
  let status: "open" | "closed" | "too-large" = "open";
  let closeMatched = 0;
  let call: CallStream | undefined;
  const toolOf = (name: string | undefined) => (name === undefined ? undefined : ctx.tools.get(name));
  const streamable = (name: string | undefined) => {
    const tool = toolOf(name);
    return tool !== undefined && !tool.strict && tool.custom !== true;
  };
  const tokens = createToolCallTokenizer(streamable);

  const replayCloseMatch = () => {
    const k = closeMatched;
    closeMatched = 0;
    for (let j = 0; j < k; j += 1) tokens.token(TOOL_CALL_CLOSE[j] as string, TOOL_CALL_CLOSE.charCodeAt(j));
  };

  /** Streams whatever became committed, once the name is known to be a soft tool. */
  const pump = () => {
    const name = tokens.name();
    if (name === undefined || !streamable(name)) return;
    const fragment = tokens.takeCommitted();
    if (fragment.length === 0) return;
    call ??= createCallStream(ctx, name);
    call.delta(fragment);
  };

  /**
   * End of the plain string run at `from`: the next `"`, `\\` or control character, or the byte
   * budget. Positions of those characters (and of non-ASCII ones, which only cost more bytes) are
   * found with `indexOf` and one native regex scan, cached until passed, so a run costs O(1) calls.
   */
  let quoteAt = -1;
  let slashAt = -1;
  let specialAt = -1;
  let runEndBytes = 0;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what ends a plain run
  const special = /[\u0000-\u001f\u0080-\uffff]/g;
  const plainRunEnd = (s: string, from: number): number => {
    if (quoteAt < from) quoteAt = nextOf(s, '"', from);
    if (slashAt < from) slashAt = nextOf(s, "\\", from);
    const end = Math.min(quoteAt, slashAt);
    let j = from;
    let runBytes = bytes;
    // Short runs (small chunks) are cheaper to check in place than to hand to the regex engine.
    if (end - j < 64) {
      for (; j < end; j += 1) {
        const c = s.charCodeAt(j);
        if (c < 0x20) break;
        const width = c < 0x80 ? 1 : utf8Width(c);
        if (runBytes + width > ctx.maxBlockBytes) break;
        runBytes += width;
      }
      runEndBytes = runBytes;
      return j;
    }
    while (j < end) {
      if (specialAt < j) {
        special.lastIndex = j;
        specialAt = special.exec(s)?.index ?? s.length;
      }
      const ascii = Math.min(specialAt, end) - j;
      if (runBytes + ascii > ctx.maxBlockBytes) {
        j += ctx.maxBlockBytes - runBytes;
        runBytes = ctx.maxBlockBytes;
        break;
      }
      j += ascii;
      runBytes += ascii;
      if (j === end) break;
      const c = s.charCodeAt(j);
      const width = utf8Width(c);
      if (c < 0x20 || runBytes + width > ctx.maxBlockBytes) break;
      runBytes += width;
      j += 1;
    }
    runEndBytes = runBytes;
    return j;
  };

  const feed = (s: string, start: number): number => {
    quoteAt = -1;
    slashAt = -1;
    specialAt = -1;
    let i = start;
    for (; i < s.length; i += 1) {
      // Fast path: long argument strings (file contents) are appended run by run. Inside an
      // argument string the close tag cannot occur, so only quotes, escapes and control
      // characters (and the byte budget) end a run.
      const target = closeMatched === 0 ? tokens.plainStringTarget() : undefined;
      if (target) {
        const j = plainRunEnd(s, i);
        if (j > i) {
          target.feedPlainRun(s, i, j);
          bytes = runEndBytes;
          i = j - 1;
          continue;
        }
      }
      const c = s.charCodeAt(i);
      bytes += utf8Width(c);
      if (bytes > ctx.maxBlockBytes) {
        status = "too-large";
        break;
      }
      if (closeMatched > 0 || (c === 60 && tokens.closeTagPossible())) {
        if (c === TOOL_CALL_CLOSE.charCodeAt(closeMatched)) {
          closeMatched += 1;
          if (closeMatched === TOOL_CALL_CLOSE.length) {
            status = "closed";
            i += 1;
            break;
          }
          continue;
        }
        replayCloseMatch();
        if (c === 60 && tokens.closeTagPossible()) {
          closeMatched = 1;
          continue;
        }
      }
      if (!tokens.failed()) tokens.token(s[i] as string, c);
    }
    raw.append(s.slice(start, i));
    pump();
    return i;
  };

  const finish = (): AfterBlock => {
    if (status === "open") replayCloseMatch();
    pump();
    const written = raw.toString();
    const body = status === "closed" ? written.slice(0, -TOOL_CALL_CLOSE.length) : written;
    const blockRaw = TOOL_CALL_OPEN + written;
    const name = tokens.name();
    const strict = toolOf(name)?.strict === true;
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
        repaired: !decision.ok || decision.repaired,
        raw: blockRaw,
        format: "json",
      });
      return "drop-whitespace";
    }
    // A custom tool's raw input may come as `{"name": …, "input": "…"}` (models fall back to it).
    const input = name !== undefined && toolOf(name)?.custom ? customToolInput(body, !strict) : undefined;
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
  };

  return { feed, state: () => status, finish };
}
