import type { ToolSpec } from "../model/tool-spec.js";
import type { AfterBlock, BlockContext } from "./call-stream.js";
import { createCallStream, rejectBlock, schemaProblem } from "./call-stream.js";
import { utf8Width } from "./chars.js";
import type { JsonBlockSnapshot } from "./json-call-decision.js";
import { decideJsonCall } from "./json-call-decision.js";
import { createJsonStringDecoder, STRING_END, STRING_ERROR, STRING_PENDING } from "./json-string-decoder.js";
import type { JsonSyntaxValidator } from "./json-syntax-validator.js";
import { createJsonSyntaxValidator } from "./json-syntax-validator.js";
import type { TextBuffer } from "./text-buffer.js";
import { createTextBuffer } from "./text-buffer.js";

export const TOOL_CALL_OPEN = "<tool_call>";
export const TOOL_CALL_CLOSE = "</tool_call>";

/** A sentinel block being read: fed until it closes, outgrows its budget, or the stream ends. */
export interface OpenBlock {
  /** Consumes `s` from `start`; returns the index of the first character it did not consume. */
  feed(s: string, start: number): number;
  state(): "open" | "closed" | "too-large";
  /** Emits the block's final events (at close, overflow, or end of stream). */
  finish(): AfterBlock;
}

// Outer object states: {"name": "...", "arguments": "..." | {...}, ...}
const O_START = 0;
const O_KEY_OR_END = 1;
const O_KEY = 2;
const O_KEY_STRING = 3;
const O_COLON = 4;
const O_VALUE = 5;
const O_NAME = 6;
const O_ARGS_STRING = 7;
const O_ARGS_OBJECT = 8;
const O_SKIP = 9;
const O_AFTER = 10;
const O_DONE = 11;
const O_FAIL = 12;

const isJsonWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

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

  let outer = O_START;
  const decoder = createJsonStringDecoder();
  let key = "";
  let nameText = "";
  let name: string | undefined;
  let tool: ToolSpec | undefined;
  let argumentsKind: JsonBlockSnapshot["argumentsKind"] = "missing";
  let args: JsonSyntaxValidator | undefined;
  let argsText: TextBuffer | undefined;
  let argsClosed = false;
  let skip: JsonSyntaxValidator | undefined;
  let call: ReturnType<typeof createCallStream> | undefined;

  const streamable = () => tool !== undefined && !tool.strict;
  const startArguments = (kind: "string" | "object") => {
    argumentsKind = kind;
    argsText = createTextBuffer(name === undefined || streamable());
    args = createJsonSyntaxValidator({ text: argsText, trailing: kind === "string" ? "absorb" : "reject" });
  };
  const resolveName = () => {
    name = nameText.trim();
    tool = ctx.tools.get(name);
    if (!streamable()) argsText?.dropTail();
  };
  const startSkip = (ch: string, c: number) => {
    skip = createJsonSyntaxValidator({ trailing: "reject" });
    outer = O_SKIP;
    delegate(skip, ch, c);
  };
  const delegate = (v: JsonSyntaxValidator, ch: string, c: number) => {
    if (!v.feed(ch, c)) {
      outer = O_AFTER;
      token(ch, c);
    } else if (v.status() === "failed") outer = O_FAIL;
  };

  const token = (ch: string, c: number): void => {
    switch (outer) {
      case O_START:
        if (c === 123) outer = O_KEY_OR_END;
        else if (!isJsonWs(c)) outer = O_FAIL;
        return;
      case O_KEY_OR_END:
      case O_KEY:
        if (c === 34) {
          outer = O_KEY_STRING;
          key = "";
        } else if (c === 125 && outer === O_KEY_OR_END) outer = O_DONE;
        else if (!isJsonWs(c)) outer = O_FAIL;
        return;
      case O_KEY_STRING:
      case O_NAME: {
        const r = decoder.decode(c);
        if (r === STRING_PENDING) return;
        if (r === STRING_ERROR) outer = O_FAIL;
        else if (r !== STRING_END) {
          if (outer === O_KEY_STRING) key += String.fromCharCode(r);
          else nameText += String.fromCharCode(r);
        } else if (outer === O_KEY_STRING) outer = O_COLON;
        else {
          resolveName();
          outer = O_AFTER;
        }
        return;
      }
      case O_COLON:
        if (c === 58) outer = O_VALUE;
        else if (!isJsonWs(c)) outer = O_FAIL;
        return;
      case O_VALUE:
        if (isJsonWs(c)) return;
        if (key === "name" && name === undefined && c === 34) outer = O_NAME;
        else if (key === "arguments" && argumentsKind === "missing" && c === 34) {
          startArguments("string");
          outer = O_ARGS_STRING;
        } else if (key === "arguments" && argumentsKind === "missing" && c === 123) {
          startArguments("object");
          outer = O_ARGS_OBJECT;
          delegate(args as JsonSyntaxValidator, ch, c);
        } else {
          if (key === "arguments" && argumentsKind === "missing")
            argumentsKind = c === 110 ? "null" : "other";
          startSkip(ch, c);
        }
        return;
      case O_ARGS_STRING: {
        const r = decoder.decode(c);
        if (r === STRING_END) {
          argsClosed = true;
          outer = O_AFTER;
        } else if (r === STRING_ERROR) outer = O_FAIL;
        else if (r !== STRING_PENDING)
          (args as JsonSyntaxValidator).feed(r === c ? ch : String.fromCharCode(r), r);
        return;
      }
      case O_ARGS_OBJECT:
        delegate(args as JsonSyntaxValidator, ch, c);
        return;
      case O_SKIP:
        delegate(skip as JsonSyntaxValidator, ch, c);
        return;
      case O_AFTER:
        if (c === 44) outer = O_KEY;
        else if (c === 125) outer = O_DONE;
        else if (!isJsonWs(c)) outer = O_FAIL;
        return;
      case O_DONE:
        if (!isJsonWs(c)) outer = O_FAIL;
        return;
    }
  };

  /** Whether `<` here may begin the close tag: everywhere except inside an argument string. */
  const closeTagPossible = () => {
    if (outer === O_ARGS_STRING) return !(args?.status() === "pending" && args.inString());
    if (outer === O_ARGS_OBJECT) return !args?.inString();
    if (outer === O_SKIP) return !skip?.inString();
    return true;
  };
  const replayCloseMatch = () => {
    const k = closeMatched;
    closeMatched = 0;
    for (let j = 0; j < k; j += 1) token(TOOL_CALL_CLOSE[j] as string, TOOL_CALL_CLOSE.charCodeAt(j));
  };

  /** Streams whatever became committed, once the name is known to be a soft tool. */
  const pump = () => {
    if (!args || !argsText || !streamable() || name === undefined) return;
    const fragment = argsText.take(args.commitEnd());
    if (fragment.length === 0) return;
    call ??= createCallStream(ctx, name);
    call.delta(fragment);
  };

  /** The validator that may take a run of plain string characters at once, if any. */
  const plainStringTarget = (): JsonSyntaxValidator | undefined => {
    if (outer === O_ARGS_OBJECT) return args?.inPlainString() ? args : undefined;
    if (outer === O_ARGS_STRING) return decoder.idle() && args?.inPlainString() ? args : undefined;
    if (outer === O_SKIP) return skip?.inPlainString() ? skip : undefined;
    return undefined;
  };

  const feed = (s: string, start: number): number => {
    let i = start;
    for (; i < s.length; i += 1) {
      // Fast path: long argument strings (file contents) are appended run by run. Inside an
      // argument string the close tag cannot occur, so only quotes, escapes and control
      // characters (and the byte budget) end a run.
      const target = closeMatched === 0 ? plainStringTarget() : undefined;
      if (target) {
        let j = i;
        let runBytes = bytes;
        for (; j < s.length; j += 1) {
          const c = s.charCodeAt(j);
          if (c === 34 || c === 92 || c < 0x20 || runBytes + utf8Width(c) > ctx.maxBlockBytes) break;
          runBytes += utf8Width(c);
        }
        if (j > i) {
          target.feedPlainRun(s, i, j);
          bytes = runBytes;
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
      if (closeMatched > 0 || (c === 60 && closeTagPossible())) {
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
        if (c === 60 && closeTagPossible()) {
          closeMatched = 1;
          continue;
        }
      }
      if (outer !== O_FAIL) token(s[i] as string, c);
    }
    raw.append(s.slice(start, i));
    pump();
    return i;
  };

  const snapshot = (body: string): JsonBlockSnapshot => ({
    body,
    outerComplete: outer === O_DONE,
    name,
    argumentsKind,
    arguments:
      args && argsText
        ? {
            text: argsText.toString(),
            status: args.status(),
            isObject: args.isObject(),
            isEmptyObject: args.isEmptyObject(),
            sanitized: args.sanitized(),
            valueEnd: args.valueEnd(),
            closed: argsClosed,
          }
        : undefined,
  });

  const finish = (): AfterBlock => {
    if (status === "open") replayCloseMatch();
    pump();
    const written = raw.toString();
    const body = status === "closed" ? written.slice(0, -TOOL_CALL_CLOSE.length) : written;
    const blockRaw = TOOL_CALL_OPEN + written;
    const strict = tool?.strict === true;
    if (call && name !== undefined) {
      const decision = decideJsonCall(snapshot(body), true);
      const truncated = status === "too-large";
      call.finish({
        arguments: decision.ok ? decision.arguments : "",
        repaired: !decision.ok || decision.repaired,
        raw: blockRaw,
        format: "json",
        ...(truncated ? { truncated } : {}),
      });
      return truncated ? "discard" : "drop-whitespace";
    }
    if (status === "too-large") {
      const detail = `the block exceeds ${ctx.maxBlockBytes} bytes`;
      rejectBlock(ctx, "block-too-large", strict, detail, blockRaw, name);
      return strict ? "discard" : "passthrough";
    }
    const unterminated = status === "open";
    const decision = decideJsonCall(snapshot(body), !strict);
    if (!decision.ok) {
      const detail = unterminated
        ? `the stream ended inside ${TOOL_CALL_OPEN}: ${decision.detail}`
        : decision.detail;
      rejectBlock(
        ctx,
        unterminated ? "unterminated" : "invalid-json",
        strict,
        detail,
        blockRaw,
        decision.name,
      );
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
        const reason = decision.repaired
          ? unterminated
            ? "unterminated"
            : "invalid-json"
          : "schema-mismatch";
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
