import type { ToolSpec } from "../model/tool-spec.js";
import { closeJsonPrefix } from "./json-syntax-validator.js";
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
 * One call's event lifecycle: `call-start` with the first fragment, append-only deltas, and a
 * `call-end` whose arguments are exactly the concatenation of the deltas. If the final arguments
 * do not extend what was already streamed, the streamed prefix is closed minimally instead.
 */
export interface CallStream {
  started(): boolean;
  /** Emits `call-start` now (XML blocks announce the call as soon as the name is known). */
  begin(): void;
  delta(fragment: string): void;
  finish(call: FinishedCall): void;
  /**
   * The block was cut off or outgrew its budget after the call started: the call is withdrawn
   * (a rejection naming its index) and, being soft, its raw block follows as text.
   */
  abandon(reason: RejectReason, detail: string, raw: string): void;
}

/**
 * `streamed`: the text every delta is the next piece of, from its start (a block's argument
 * text); the stream then keeps only a length instead of a second copy of what it sent.
 */
export function createCallStream(ctx: BlockContext, name: string, streamed?: TextBuffer): CallStream {
  let index = -1;
  const sent = streamed === undefined ? createTextBuffer(false) : undefined;
  let sentLength = 0;
  const start = () => {
    if (index >= 0) return;
    index = ctx.nextIndex();
    ctx.emit({ type: "call-start", index, name });
  };
  const delta = (fragment: string) => {
    if (fragment.length === 0) return;
    start();
    sent?.append(fragment);
    sentLength += fragment.length;
    ctx.emit({ type: "call-delta", index, delta: fragment });
  };
  const sentText = () =>
    sent === undefined ? (streamed as TextBuffer).toString().slice(0, sentLength) : sent.toString();
  return {
    started: () => index >= 0,
    begin: start,
    delta,
    finish(call) {
      let args = call.arguments;
      let repaired = call.repaired;
      if (sentLength > 0 && call.extendsStreamed !== true) {
        const prefix = sentText();
        if (!args.startsWith(prefix)) {
          args = closeJsonPrefix(prefix);
          repaired = true;
        }
      }
      start();
      delta(args.slice(sentLength));
      const schemaWarning = schemaProblem(ctx, name, args);
      ctx.emit({
        type: "call-end",
        index,
        name,
        arguments: args,
        format: call.format,
        repaired,
        raw: call.raw,
        ...(schemaWarning === undefined ? {} : { schemaWarning }),
      });
    },
    abandon(reason, detail, raw) {
      ctx.emit({ type: "call-rejected", reason, strict: false, detail, raw, name, index });
      ctx.emit({ type: "text", text: raw });
    },
  };
}

/** The validator's complaint about final arguments, if any (undefined when they conform). */
export function schemaProblem(ctx: BlockContext, name: string, args: string): string | undefined {
  // Final arguments are always a JSON object, which a tool without parameters accepts.
  if (!ctx.validator || ctx.tools.get(name)?.parameters === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return "arguments are not valid JSON";
  }
  const result = ctx.validator.validate(name, value);
  return result.ok ? undefined : result.message;
}

/** Emits a rejection; a soft one is followed by the raw block as text. */
export function rejectBlock(
  ctx: BlockContext,
  reason: RejectReason,
  strict: boolean,
  detail: string,
  raw: string,
  name: string | undefined,
): void {
  ctx.emit({ type: "call-rejected", reason, strict, detail, raw, ...(name === undefined ? {} : { name }) });
  if (!strict) ctx.emit({ type: "text", text: raw });
}
