import type { AfterBlock, BlockContext } from "./call-stream.js";

/** A block being read: fed until it closes, outgrows its budget, or the stream ends. */
export interface OpenBlock {
  /** Consumes `s` from `start`; returns the index of the first character it did not consume. */
  feed(s: string, start: number): number;
  state(): "open" | "closed" | "too-large";
  /** Emits the block's final events (at close, overflow, or end of stream). */
  finish(): AfterBlock;
  /**
   * After `finish`: text the block turned out not to hold (it was taken to end earlier), to be
   * read again as text. Empty for most blocks.
   */
  unread?(): string;
}

/**
 * One way a text-only model writes tool calls: the tags around a block, how a block is read,
 * how an earlier call is written back into the history, and the prompt lines that teach it. The
 * parser knows formats only through this interface.
 */
export interface BlockFormat {
  /** Short name carried by `tool-call-end.format`. */
  readonly id: string;
  /** The opening tag. It starts with `<` and has no other `<`, so a failed match restarts only there. */
  readonly open: string;
  /** The closing tag (same rule as `open`). */
  readonly close: string;
  /** Starts reading one block; called right after its opening tag. */
  openBlock(ctx: BlockContext): OpenBlock;
  /** An earlier call as the model would have written it (for the rendered history and examples). */
  renderCall(name: string, argumentsJson: string): string;
  /** Prompt lines that teach the format, ending with the block's exact shape. */
  readonly promptRules: ReadonlyArray<string>;
}
