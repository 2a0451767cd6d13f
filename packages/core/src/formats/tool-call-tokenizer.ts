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
  /** The argument text when the arguments are an object (written as is, so a slice of the block). */
  objectArgumentsText(): TextBuffer | undefined;
  /**
   * The object, which named a tool, ended and another `{` began (`{…}{…}`, `{…}, {…}` or on the
   * next line): a block holding several calls. That `{` was not taken: it starts the next object.
   */
  nextObject(): boolean;
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
/** After the object: one `,` seen, another object may follow. */
const O_SEPARATED = 13;
const O_NEXT = 14;

const isJsonWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** A class, not closures: one per block (closure creation is not free, more so with keepNames). */
class OuterObjectTokenizer implements ToolCallTokenizer {
  private outer = O_START;
  private readonly decoder = createJsonStringDecoder();
  private key = "";
  private nameText = "";
  private resolved: string | undefined;
  private argumentsKind: JsonBlockSnapshot["argumentsKind"] = "missing";
  private args: JsonSyntaxValidator | undefined;
  private argsText: TextBuffer | undefined;
  private argsClosed = false;
  private skip: JsonSyntaxValidator | undefined;
  private readonly streamable: (name: string | undefined) => boolean;

  constructor(streamable: (name: string | undefined) => boolean) {
    this.streamable = streamable;
  }

  private startArguments(kind: "string" | "object"): void {
    this.argumentsKind = kind;
    this.argsText = createTextBuffer(this.resolved === undefined || this.streamable(this.resolved));
    this.args = createJsonSyntaxValidator({
      text: this.argsText,
      trailing: kind === "string" ? "absorb" : "reject",
      repair: true,
    });
  }
  private resolveName(): void {
    this.resolved = this.nameText.trim();
    if (!this.streamable(this.resolved)) this.argsText?.dropTail();
  }
  private startSkip(ch: string, c: number): void {
    this.skip = createJsonSyntaxValidator({ trailing: "reject" });
    this.outer = O_SKIP;
    this.delegate(this.skip, ch, c);
  }
  private delegate(v: JsonSyntaxValidator, ch: string, c: number): void {
    if (!v.feed(ch, c)) {
      this.outer = O_AFTER;
      this.token(ch, c);
    } else if (v.status() === "failed") this.outer = O_FAIL;
  }

  token(ch: string, c: number): void {
    switch (this.outer) {
      case O_START:
        if (c === 123) this.outer = O_KEY_OR_END;
        else if (!isJsonWs(c)) this.outer = O_FAIL;
        return;
      case O_KEY_OR_END:
      case O_KEY:
        if (c === 34) {
          this.outer = O_KEY_STRING;
          this.key = "";
        } else if (c === 125 && this.outer === O_KEY_OR_END) this.outer = O_DONE;
        else if (!isJsonWs(c)) this.outer = O_FAIL;
        return;
      case O_KEY_STRING:
      case O_NAME: {
        const r = this.decoder.decode(c);
        if (r === STRING_PENDING) return;
        if (r === STRING_ERROR) this.outer = O_FAIL;
        else if (r !== STRING_END) {
          if (this.outer === O_KEY_STRING) this.key += String.fromCharCode(r);
          else this.nameText += String.fromCharCode(r);
        } else if (this.outer === O_KEY_STRING) this.outer = O_COLON;
        else {
          this.resolveName();
          this.outer = O_AFTER;
        }
        return;
      }
      case O_COLON:
        if (c === 58) this.outer = O_VALUE;
        else if (!isJsonWs(c)) this.outer = O_FAIL;
        return;
      case O_VALUE: {
        if (isJsonWs(c)) return;
        const missing = this.key === "arguments" && this.argumentsKind === "missing";
        if (this.key === "name" && this.resolved === undefined && c === 34) this.outer = O_NAME;
        else if (missing && c === 34) {
          this.startArguments("string");
          this.outer = O_ARGS_STRING;
        } else if (missing && c === 123) {
          this.startArguments("object");
          this.outer = O_ARGS_OBJECT;
          this.delegate(this.args as JsonSyntaxValidator, ch, c);
        } else {
          if (missing) this.argumentsKind = c === 110 ? "null" : "other";
          this.startSkip(ch, c);
        }
        return;
      }
      case O_ARGS_STRING: {
        const r = this.decoder.decode(c);
        if (r === STRING_END) {
          this.argsClosed = true;
          this.outer = O_AFTER;
        } else if (r === STRING_ERROR) this.outer = O_FAIL;
        else if (r !== STRING_PENDING)
          (this.args as JsonSyntaxValidator).feed(r === c ? ch : String.fromCharCode(r), r);
        return;
      }
      case O_ARGS_OBJECT:
        this.delegate(this.args as JsonSyntaxValidator, ch, c);
        return;
      case O_SKIP:
        this.delegate(this.skip as JsonSyntaxValidator, ch, c);
        return;
      case O_AFTER:
        if (c === 44) this.outer = O_KEY;
        else if (c === 125) this.outer = O_DONE;
        else if (!isJsonWs(c)) this.outer = O_FAIL;
        return;
      case O_DONE:
      case O_SEPARATED:
        // Another object after a named one is another call (nameless `{}{}…` stays one bad block).
        if (c === 123 && this.resolved !== undefined) this.outer = O_NEXT;
        else if (c === 44 && this.outer === O_DONE) this.outer = O_SEPARATED;
        else if (!isJsonWs(c)) this.outer = O_FAIL;
        return;
    }
  }

  failed(): boolean {
    return this.outer === O_FAIL;
  }
  closeTagPossible(): boolean {
    if (this.outer === O_ARGS_STRING) return !(this.args?.status() === "pending" && this.args.inString());
    if (this.outer === O_ARGS_OBJECT) return !this.args?.inString();
    if (this.outer === O_SKIP) return !this.skip?.inString();
    return true;
  }
  plainStringTarget(): JsonSyntaxValidator | undefined {
    if (this.outer === O_ARGS_OBJECT) return this.args?.inPlainString() ? this.args : undefined;
    if (this.outer === O_ARGS_STRING)
      return this.decoder.idle() && this.args?.inPlainString() ? this.args : undefined;
    if (this.outer === O_SKIP) return this.skip?.inPlainString() ? this.skip : undefined;
    return undefined;
  }
  argumentsEncoded(): boolean {
    return this.outer === O_ARGS_STRING;
  }
  name(): string | undefined {
    return this.resolved;
  }
  takeCommitted(): string {
    return this.args && this.argsText ? this.argsText.take(this.args.commitEnd()) : "";
  }
  argumentsText(): TextBuffer | undefined {
    return this.argsText;
  }
  objectArgumentsText(): TextBuffer | undefined {
    return this.argumentsKind === "object" ? this.argsText : undefined;
  }
  nextObject(): boolean {
    return this.outer === O_NEXT;
  }
  snapshot(body: string): JsonBlockSnapshot {
    const args = this.args;
    return {
      body,
      outerComplete: this.outer === O_DONE || this.outer === O_NEXT,
      argumentsOpen: this.outer === O_ARGS_OBJECT || this.outer === O_ARGS_STRING,
      name: this.resolved,
      argumentsKind: this.argumentsKind,
      arguments:
        args && this.argsText
          ? {
              text: this.argsText.toString(),
              status: args.status(),
              isObject: args.isObject(),
              isEmptyObject: args.isEmptyObject(),
              sanitized: args.sanitized(),
              literalized: args.literalized(),
              closers: args.status() === "pending" ? args.closers() : undefined,
              valueEnd: args.valueEnd(),
              closed: this.argsClosed,
            }
          : undefined,
    };
  }
}

/** `streamable(name)` says whether the arguments of this tool will be streamed (else no tail is kept). */
export const createToolCallTokenizer = (
  streamable: (name: string | undefined) => boolean,
): ToolCallTokenizer => new OuterObjectTokenizer(streamable);
