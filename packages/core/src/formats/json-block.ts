import type { OpenBlock } from "../parser/block-format.js";
import type { AfterBlock, BlockContext, CallStream } from "../parser/call-stream.js";
import { createCallStream, rejectBlock, schemaProblem } from "../parser/call-stream.js";
import { utf8Width } from "../parser/chars.js";
import { createStringRun, scanStringRun } from "../parser/json-string-run.js";
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

  /** Whether the named tool's arguments stream (decided once, when the name is known). */
  let streams: boolean | undefined;
  /** Streams whatever became committed, once the name is known to be a soft tool. */
  const pump = () => {
    if (streams === undefined) {
      const name = tokens.name();
      if (name === undefined) return;
      streams = streamable(name);
    }
    if (!streams) return;
    const fragment = tokens.takeCommitted();
    if (fragment.length === 0) return;
    call ??= createCallStream(ctx, tokens.name() as string, tokens.argumentsText());
    call.delta(fragment);
  };

  const run = createStringRun();

  const feed = (s: string, start: number): number => {
    let i = start;
    for (; i < s.length; i += 1) {
      // Fast path: string content (file contents) is appended run by run, escapes included.
      // Inside a string the close tag cannot occur, so only quotes, control characters, cut-off
      // escapes and the byte budget end a run; those take the path below, one character each.
      const target = closeMatched === 0 ? tokens.plainStringTarget() : undefined;
      if (target) {
        scanStringRun(s, i, ctx.maxBlockBytes - bytes, tokens.argumentsEncoded(), run);
        if (run.end > i) {
          target.feedStringRun(run.text, run.openSurrogates);
          bytes += run.bytes;
          i = run.end - 1;
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
    raw.append(start === 0 && i === s.length ? s : s.slice(start, i));
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
        extendsStreamed: decision.ok && decision.fromStreamedText === true,
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
