import type { ToolSpec } from "../model/tool-spec.js";
import { argumentShapeProblem } from "../tools/argument-shape.js";
import type { ArgumentsValidator, ParserEvent, RejectReason } from "./parser-types.js";
import type { TextBuffer } from "./text-buffer.js";
import { createTextBuffer } from "./text-buffer.js";

/** What a block handler needs from the parser around it. */
export interface BlockContext {
  readonly tools: ReadonlyMap<string, ToolSpec>;
  readonly validator: ArgumentsValidator | undefined;
  readonly maxBlockBytes: number;
  /** Appends an event to the current batch (text is merged by the parser). */
  emit(event: ParserEvent): void;
  /** Index for the next started call (0, 1, 2 … per parser). */
  nextIndex(): number;
}

/** How the parser treats what follows a block. */
export type AfterBlock =
  | "drop-whitespace" // a call (or a strict rejection) vanished from the text: no stray whitespace
  | "text" // the block was given back as text: what follows is ordinary text
  | "passthrough" // oversized soft block given back as text: forward the rest of it up to its close tag
  | "discard"; // oversized strict block: drop the rest of it up to its close tag

export interface FinishedCall {
  readonly arguments: string;
  /**
   * The arguments are the value of the very text the deltas were taken from (see
   * `createCallStream`'s `streamed`), so they extend every streamed prefix: no comparison needed.
   */
  readonly extendsStreamed?: boolean | undefined;
  readonly repaired: boolean;
  readonly raw: string;
  readonly format: string;
}

/**
 * One call's event lifecycle: `tool-call-start` with the first fragment, append-only deltas, and a
 * `tool-call-end` whose arguments are exactly the concatenation of the deltas. If the final arguments
 * do not extend what was already streamed, the call is withdrawn: closing the streamed prefix
 * would hand the client a shortened value.
 */
export interface CallStream {
  started(): boolean;
  /** Emits `tool-call-start` now (XML blocks announce the call as soon as the name is known). */
  begin(): void;
  delta(fragment: string): void;
  /** Ends the call; false when it had to be withdrawn instead (see `abandon`). */
  finish(call: FinishedCall): boolean;
  /**
   * The block was cut off, outgrew its budget or went bad after the call started: the call is
   * withdrawn (a rejection naming its index) and, being soft, its raw block follows as text.
   */
  abandon(reason: RejectReason, detail: string, raw: string): void;
}

/**
 * `streamed`: the text every delta is the next piece of, from its start (a block's argument
 * text); the stream then keeps only a length instead of a second copy of what it sent.
 */
export const createCallStream = (
  ctx: BlockContext,
  name: string,
  streamed?: TextBuffer,
  callId?: string,
): CallStream => new CallEvents(ctx, name, streamed, callId);

/** A class, not closures: one per call. */
class CallEvents implements CallStream {
  private readonly ctx: BlockContext;
  private readonly name: string;
  private readonly streamed: TextBuffer | undefined;
  /** The model's own id for a native call (its `tool-call-start` carries it). */
  private readonly callId: string | undefined;
  private readonly sent: TextBuffer | undefined;
  private index = -1;
  private sentLength = 0;

  constructor(ctx: BlockContext, name: string, streamed: TextBuffer | undefined, callId: string | undefined) {
    this.ctx = ctx;
    this.name = name;
    this.streamed = streamed;
    this.callId = callId;
    this.sent = streamed === undefined ? createTextBuffer(false) : undefined;
  }

  started(): boolean {
    return this.index >= 0;
  }

  begin(): void {
    if (this.index >= 0) return;
    this.index = this.ctx.nextIndex();
    const { index, name, callId } = this;
    this.ctx.emit(
      callId === undefined
        ? { type: "tool-call-start", index, name }
        : { type: "tool-call-start", index, name, callId },
    );
  }

  delta(fragment: string): void {
    if (fragment.length === 0) return;
    this.begin();
    this.sent?.append(fragment);
    this.sentLength += fragment.length;
    this.ctx.emit({ type: "tool-call-delta", index: this.index, delta: fragment });
  }

  finish(call: FinishedCall): boolean {
    const args = call.arguments;
    if (this.sentLength > 0 && call.extendsStreamed !== true) {
      const prefix =
        this.sent?.toString() ?? (this.streamed as TextBuffer).toString().slice(0, this.sentLength);
      if (!args.startsWith(prefix)) {
        this.abandon("invalid-json", "the arguments do not extend what was streamed", call.raw);
        return false;
      }
    }
    const verdict = checkArguments(this.ctx, this.name, args);
    if (verdict?.refused) {
      this.refuse(verdict.message, call.raw);
      return false;
    }
    const schemaWarning = verdict?.message;
    this.begin();
    this.delta(args.slice(this.sentLength));
    this.ctx.emit({
      type: "tool-call-end",
      index: this.index,
      name: this.name,
      arguments: args,
      format: call.format,
      repaired: call.repaired,
      raw: call.raw,
      ...(schemaWarning === undefined ? {} : { schemaWarning }),
    });
    return true;
  }

  /** Arguments no mode accepts: a strict tool's rejection, or a soft call withdrawn or given back. */
  private refuse(detail: string, raw: string): void {
    const strict = this.ctx.tools.get(this.name)?.strict === true;
    if (this.index >= 0 && !strict) this.abandon("schema-mismatch", detail, raw);
    else rejectBlock(this.ctx, "schema-mismatch", strict, detail, raw, this.name, this.index);
  }

  abandon(reason: RejectReason, detail: string, raw: string): void {
    const { ctx, name, index } = this;
    ctx.emit({ type: "tool-call-rejected", reason, strict: false, detail, raw, name, index });
    // A native call (no raw text) was never text: nothing is given back.
    if (raw.length > 0) ctx.emit({ type: "text-delta", delta: raw });
  }
}

/**
 * What the checks say about final arguments: undefined when they conform; `refused` when they
 * are no call in any mode (forbidden keys, too deep, a value the schema forbids outright); else
 * the schema's complaint (a strict tool's rejection, a soft tool's warning).
 */
export function checkArguments(
  ctx: BlockContext,
  name: string,
  args: string,
): { readonly refused: boolean; readonly message: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return { refused: true, message: "arguments are not valid JSON" };
  }
  const shape = argumentShapeProblem(value);
  if (shape !== undefined) return { refused: true, message: shape };
  // Final arguments are always a JSON object, which a tool without parameters accepts.
  if (!ctx.validator || ctx.tools.get(name)?.parameters === undefined) return undefined;
  const result = ctx.validator.validate(name, value);
  return result.ok ? undefined : { refused: result.refused === true, message: result.message };
}

/** Why final arguments do not pass (undefined when they conform). */
export const schemaProblem = (ctx: BlockContext, name: string, args: string): string | undefined =>
  checkArguments(ctx, name, args)?.message;

/** Emits a rejection; a soft one is followed by the raw block as text. */
export function rejectBlock(
  ctx: BlockContext,
  reason: RejectReason,
  strict: boolean,
  detail: string,
  raw: string,
  name: string | undefined,
  index = -1,
): void {
  ctx.emit({
    type: "tool-call-rejected",
    reason,
    strict,
    detail,
    raw,
    ...(name === undefined ? {} : { name }),
    ...(index < 0 ? {} : { index }),
  });
  // A native call (no raw text) was never text: nothing is given back.
  if (!strict && raw.length > 0) ctx.emit({ type: "text-delta", delta: raw });
}
