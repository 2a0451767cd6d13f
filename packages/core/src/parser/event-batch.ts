import type { ToolSpec } from "../model/tool-spec.js";
import type { BlockContext } from "./call-stream.js";
import { isHighSurrogate } from "./chars.js";
import type { ArgumentsValidator, ParserEvent, ParserSink } from "./parser-types.js";

type CallEvent = Exclude<ParserEvent, { type: "text-delta" }>;

/** Returned by a push that produced nothing (most pushes inside a block): no allocation. */
export const NO_EVENTS: ParserEvent[] = Object.freeze([]) as unknown as ParserEvent[];

/**
 * The events of one push: adjacent text is merged into one text run, and a text run never ends
 * between the two halves of a surrogate pair (the high half waits for the next push). Also the
 * context block readers emit into. Text runs are kept as strings beside the other events, so a
 * push delivered to a sink allocates no event object for its text. A class: one per parser, its
 * methods are not closures; its list is reused from push to push.
 */
export class EventBatch implements BlockContext {
  readonly tools: ReadonlyMap<string, ToolSpec>;
  readonly validator: ArgumentsValidator | undefined;
  readonly maxBlockBytes: number;
  /** This push's events so far, a string standing for a text run (the open run is `text`). */
  private readonly items: Array<CallEvent | string | undefined> = [];
  /** Used length of `items` (the array is reused; setting `length` costs a runtime call). */
  private count = 0;
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
    return this.text.length === 0 && this.count === 0;
  }

  addText(piece: string): void {
    if (piece.length === 0) return;
    this.text += piece;
    this.textEndsHigh = isHighSurrogate(piece.charCodeAt(piece.length - 1));
  }

  emit(event: ParserEvent): void {
    if (event.type === "text-delta") {
      this.addText(event.delta);
      return;
    }
    this.closeText();
    this.items[this.count++] = event;
  }

  nextIndex(): number {
    this.callCount += 1;
    return this.callCount - 1;
  }

  private closeText(): void {
    if (this.text.length === 0) return;
    this.items[this.count++] = this.text;
    this.text = "";
  }

  /** Unless `final`, a trailing high surrogate is cut off the open run and returned (it waits). */
  private carry(final: boolean): string {
    if (final || !this.textEndsHigh || this.text.length === 0) return "";
    const carry = this.text.slice(-1);
    this.text = this.text.slice(0, -1);
    return carry;
  }

  /** The events so far to `sink`, in order; unless `final`, a trailing high surrogate waits. */
  drainTo(sink: ParserSink, final: boolean): void {
    const carry = this.carry(final);
    if (this.count === 0) {
      // The common push: one text run or nothing.
      const text = this.text;
      this.text = carry;
      if (text.length > 0) sink.text(text);
      return;
    }
    this.closeText();
    this.text = carry;
    const { items, count } = this;
    this.count = 0;
    for (let k = 0; k < count; k += 1) {
      const item = items[k] as CallEvent | string;
      items[k] = undefined;
      if (typeof item === "string") sink.text(item);
      else sink.event(item);
    }
  }

  /** The events so far as a list (the array API; the gateway's path is `drainTo`). */
  take(final: boolean): ParserEvent[] {
    const events: ParserEvent[] = [];
    this.drainTo(
      {
        text: (delta) => void events.push({ type: "text-delta", delta }),
        event: (event) => void events.push(event),
      },
      final,
    );
    return events.length === 0 ? NO_EVENTS : events;
  }
}
