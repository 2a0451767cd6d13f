import type { ToolSpec } from "../model/tool-spec.js";
import type { BlockContext } from "./call-stream.js";
import { isHighSurrogate } from "./chars.js";
import type { ArgumentsValidator, ParserEvent } from "./parser-types.js";

/** Returned by a push that produced nothing (most pushes inside a block): no allocation. */
export const NO_EVENTS: ParserEvent[] = Object.freeze([]) as unknown as ParserEvent[];

/**
 * The events of one push: adjacent text is merged into one `text` event, and a text event never
 * ends between the two halves of a surrogate pair (the high half waits for the next push). Also
 * the context block readers emit into. A class: one per parser, its methods are not closures.
 */
export class EventBatch implements BlockContext {
  readonly tools: ReadonlyMap<string, ToolSpec>;
  readonly validator: ArgumentsValidator | undefined;
  readonly maxBlockBytes: number;
  /** The first event of this push alone (most pushes produce one), the others in `events`. */
  private first: ParserEvent | undefined;
  private events: ParserEvent[] | undefined;
  private text = "";
  /** The last character added to `text` is a high surrogate (read from the piece, not the rope). */
  private textEndsHigh = false;
  private callCount = 0;

  constructor(
    tools: ReadonlyMap<string, ToolSpec>,
    validator: ArgumentsValidator | undefined,
    maxBlockBytes: number,
  ) {
    this.tools = tools;
    this.validator = validator;
    this.maxBlockBytes = maxBlockBytes;
  }

  /** Nothing is pending (no text, no events): a push may answer with its chunk alone. */
  empty(): boolean {
    return this.text.length === 0 && this.first === undefined;
  }

  addText(piece: string): void {
    if (piece.length === 0) return;
    this.text += piece;
    this.textEndsHigh = isHighSurrogate(piece.charCodeAt(piece.length - 1));
  }

  emit(event: ParserEvent): void {
    if (event.type === "text") {
      this.addText(event.text);
      return;
    }
    this.flushText();
    this.add(event);
  }

  private add(event: ParserEvent): void {
    if (this.first === undefined) this.first = event;
    else if (this.events === undefined) this.events = [this.first, event];
    else this.events.push(event);
  }

  nextIndex(): number {
    this.callCount += 1;
    return this.callCount - 1;
  }

  private flushText(): void {
    if (this.text.length === 0) return;
    this.add({ type: "text", text: this.text });
    this.text = "";
  }

  /** The events so far; unless `final`, a trailing high surrogate stays for the next push. */
  take(final: boolean): ParserEvent[] {
    let carry = "";
    if (!final && this.text.length > 0 && this.textEndsHigh) {
      carry = this.text.slice(-1);
      this.text = this.text.slice(0, -1);
    }
    this.flushText();
    this.text = carry;
    const { first, events } = this;
    if (first === undefined) return NO_EVENTS;
    this.first = undefined;
    this.events = undefined;
    return events ?? [first];
  }
}
