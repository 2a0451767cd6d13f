import {
  createJsonStringDecoder,
  STRING_END,
  STRING_ERROR,
  STRING_PENDING,
} from "../parser/json-string-decoder.js";
import type { JsonSyntaxValidator } from "../parser/json-syntax-validator.js";
import { createJsonSyntaxValidator } from "../parser/json-syntax-validator.js";
import type { TextBuffer } from "../parser/text-buffer.js";
import { createTextBuffer } from "../parser/text-buffer.js";
import type { JsonBlockSnapshot } from "./json-call-decision.js";

export const TOOL_CALL_CLOSE = "</tool_call>";

/**
 * Tokenizes the outer object of a `<tool_call>` block, `{"name": …, "arguments": …}`, one
 * character at a time. The arguments (a JSON string whose escapes are decoded on the fly, or a
 * raw object) go through a syntax validator that knows which prefix is committed.
 */
export interface ToolCallTokenizer {
  token(ch: string, code: number): void;
  failed(): boolean;
  /** Whether `<` here may begin the close tag: everywhere except inside an argument string. */
  closeTagPossible(): boolean;
  /** The validator that may take a run of string content at once (`scanStringRun`), if any. */
  plainStringTarget(): JsonSyntaxValidator | undefined;
  /** The arguments are a JSON string: a run's raw text is JSON-encoded once more. */
  argumentsEncoded(): boolean;
  name(): string | undefined;
  /** Argument text committed since the last call (requires `streamable` to have said yes). */
  takeCommitted(): string;
  /** All argument text so far (what `takeCommitted` hands out pieces of, from its start). */
  argumentsText(): TextBuffer | undefined;
  snapshot(body: string): JsonBlockSnapshot;
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

/** `streamable(name)` says whether the arguments of this tool will be streamed (else no tail is kept). */
export function createToolCallTokenizer(
  streamable: (name: string | undefined) => boolean,
): ToolCallTokenizer {
  let outer = O_START;
  const decoder = createJsonStringDecoder();
  let key = "";
  let nameText = "";
  let name: string | undefined;
  let argumentsKind: JsonBlockSnapshot["argumentsKind"] = "missing";
  let args: JsonSyntaxValidator | undefined;
  let argsText: TextBuffer | undefined;
  let argsClosed = false;
  let skip: JsonSyntaxValidator | undefined;

  const startArguments = (kind: "string" | "object") => {
    argumentsKind = kind;
    argsText = createTextBuffer(name === undefined || streamable(name));
    args = createJsonSyntaxValidator({ text: argsText, trailing: kind === "string" ? "absorb" : "reject" });
  };
  const resolveName = () => {
    name = nameText.trim();
    if (!streamable(name)) argsText?.dropTail();
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

  const closeTagPossible = () => {
    if (outer === O_ARGS_STRING) return !(args?.status() === "pending" && args.inString());
    if (outer === O_ARGS_OBJECT) return !args?.inString();
    if (outer === O_SKIP) return !skip?.inString();
    return true;
  };

  const plainStringTarget = (): JsonSyntaxValidator | undefined => {
    if (outer === O_ARGS_OBJECT) return args?.inPlainString() ? args : undefined;
    if (outer === O_ARGS_STRING) return decoder.idle() && args?.inPlainString() ? args : undefined;
    if (outer === O_SKIP) return skip?.inPlainString() ? skip : undefined;
    return undefined;
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

  return {
    token,
    failed: () => outer === O_FAIL,
    closeTagPossible,
    plainStringTarget,
    argumentsEncoded: () => outer === O_ARGS_STRING,
    name: () => name,
    takeCommitted: () => (args && argsText ? argsText.take(args.commitEnd()) : ""),
    argumentsText: () => argsText,
    snapshot,
  };
}
