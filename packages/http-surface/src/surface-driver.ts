import type { AssistantBatch, AssistantEvent, GatewayError } from "@proxy/core";
import type { SseSink } from "./sse-sink.js";
import { unfinishedTurn } from "./terminated-turn.js";
import type { TurnSession } from "./turn-session.js";

/** The event a turn ends with: exactly one per turn. */
export type TerminalEvent = Extract<AssistantEvent, { type: "finish" | "error" }>;

const isTerminal = (event: AssistantEvent): event is TerminalEvent =>
  event.type === "finish" || event.type === "error";

/** A turn that stopped with neither (the session's batches never do; a defensive end). */
const UNFINISHED = (): TerminalEvent => ({ type: "error", error: unfinishedTurn() });

/**
 * What a surface writes into its SSE stream: frames only. The driver (`streamTurn`) owns the batch
 * loop, the abort checks, one flush per batch and the ending.
 */
export interface StreamEncoder {
  /** Queues the frames that open the answer; they go out with the first batch. */
  start?(sink: SseSink): void;
  /** Queues the frames of one event (any but the terminal one). */
  push(event: AssistantEvent, sink: SseSink): void;
  /** Queues the frames that end the answer, after the turn's `finish` or `error`. */
  end(terminal: TerminalEvent, sink: SseSink): void | Promise<void>;
}

/**
 * Streams an accepted turn: each batch is encoded and written with one flush (so a client that does
 * not read pauses the turn); the batch with the terminal event goes out together with the closing
 * frames. Nothing more is written once the client went away.
 */
export const streamTurn = (
  session: TurnSession,
  batches: AsyncIterable<AssistantBatch>,
  encoder: StreamEncoder,
): Response =>
  session.stream(async (sink) => {
    encoder.start?.(sink);
    let terminal: TerminalEvent | undefined;
    for await (const batch of batches) {
      if (sink.aborted) return;
      for (const event of batch) {
        if (isTerminal(event)) terminal = event;
        else encoder.push(event, sink);
      }
      if (terminal !== undefined) break;
      await sink.flush();
    }
    if (sink.aborted) return;
    await encoder.end(terminal ?? UNFINISHED(), sink);
    await sink.flush();
  });

/** A non-streamed answer: the surface's JSON body, or the error to answer with instead. */
export type FoldedAnswer = { readonly body: unknown } | { readonly error: GatewayError };

/**
 * What a surface folds a turn into when it answers with one JSON body: the same events the stream
 * would have encoded, then the answer once the turn ended.
 */
export interface TurnFolder {
  push(event: AssistantEvent): void;
  end(terminal: TerminalEvent): FoldedAnswer | Promise<FoldedAnswer>;
}

/**
 * Runs an accepted turn to its end and answers with one JSON body folded from its events, or with
 * the surface's HTTP error (nothing was sent yet, so a failure gets a status a client can act on).
 */
export const foldTurn = async (
  session: TurnSession,
  batches: AsyncIterable<AssistantBatch>,
  folder: TurnFolder,
): Promise<Response> => {
  let terminal: TerminalEvent | undefined;
  for await (const batch of batches)
    for (const event of batch) {
      if (isTerminal(event)) terminal = event;
      else folder.push(event);
    }
  const answer = await folder.end(terminal ?? UNFINISHED());
  return "error" in answer ? session.fail(answer.error) : session.json(answer.body);
};
