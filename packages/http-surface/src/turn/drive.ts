import { type AssistantEvent, type GatewayError, toGatewayError } from "@proxy/core";
import type { AssistantBatch } from "@proxy/core/gateway";
import type { SseSink } from "../stream/sse-sink.js";
import type { TurnSession } from "./session.js";
import { unfinishedTurn } from "./terminated.js";

/** The event a turn ends with: exactly one per turn. */
export type TerminalEvent = Extract<AssistantEvent, { type: "finish" | "error" }>;

/** A turn that stopped with neither (the session's batches never do; a defensive end). */
const UNFINISHED = (): TerminalEvent => ({ type: "error", error: unfinishedTurn() });

/** A thrown failure (a bug in an encoder, a broken iterator) ends the turn like an `error` event. */
const thrown = (error: unknown): TerminalEvent => ({ type: "error", error: toGatewayError(error) });

/**
 * Where the driver delivers a turn's output: an SSE stream (`SseSink`), or whatever a surface records
 * a turn into when no client reads it (a background turn's event log).
 */
export interface TurnSink {
  /**
   * Delivers what the encoder queued for one batch. Resolves at once while the reader keeps up; waits
   * while it does not (so a slow client pauses the turn, and through it the backend).
   */
  flush(): Promise<void>;
  /** The reader went away: nothing more can be delivered, the turn stops. */
  readonly aborted: boolean;
}

/**
 * What a surface writes into its stream: frames only. The driver (`pumpTurn`) owns the batch loop,
 * the abort checks, one flush per batch and the ending.
 */
export interface StreamEncoder<Sink extends TurnSink = SseSink> {
  /** Queues the frames that open the answer; they go out with the first batch. */
  start?(sink: Sink): void;
  /** Queues the frames of one event (any but the terminal one). */
  push(event: AssistantEvent, sink: Sink): void;
  /** Queues the frames that end the answer, after the turn's `finish` or `error`. */
  end(terminal: TerminalEvent, sink: Sink): void | Promise<void>;
}

/**
 * Drives an accepted turn into a sink: each batch is encoded and delivered with one flush; the batch
 * with the terminal event goes out together with the closing frames. Nothing more is delivered once
 * the sink is aborted; a thrown failure still ends the answer with the encoder's terminal error.
 */
export const pumpTurn = async <Sink extends TurnSink>(
  batches: AsyncIterable<AssistantBatch>,
  encoder: StreamEncoder<Sink>,
  sink: Sink,
): Promise<void> => {
  let terminal: TerminalEvent | undefined;
  try {
    encoder.start?.(sink);
    for await (const batch of batches) {
      if (sink.aborted) return;
      // An index loop with the terminal check inline: this runs once per delta.
      for (let k = 0; k < batch.length; k += 1) {
        const event = batch[k] as AssistantEvent;
        if (event.type === "finish" || event.type === "error") terminal = event;
        else encoder.push(event, sink);
      }
      if (terminal !== undefined) break;
      await sink.flush();
    }
  } catch (error) {
    terminal = thrown(error);
  }
  if (sink.aborted) return;
  await encoder.end(terminal ?? UNFINISHED(), sink);
  await sink.flush();
};

/**
 * A streamed answer whose encoder writes into a sink of its own over the session's SSE stream
 * (Responses' event sink), with what must still happen once the turn was pumped however it ended,
 * the client gone included, before the stream closes (a stored response is saved there).
 */
export interface StreamAnswer<Sink extends TurnSink = TurnSink> {
  open(sse: SseSink): Sink;
  readonly encoder: StreamEncoder<Sink>;
  settle?(sink: Sink): Promise<void>;
}

/**
 * Streams an accepted turn as the session's SSE answer (see `pumpTurn`): straight into the stream,
 * or into the answer's own sink over it, settled however the turn ended.
 */
export const streamTurn = (
  session: TurnSession,
  batches: AsyncIterable<AssistantBatch>,
  answer: StreamEncoder | StreamAnswer,
): Response =>
  "open" in answer
    ? session.stream(async (sse) => {
        const sink = answer.open(sse);
        try {
          await pumpTurn(batches, answer.encoder, sink);
        } finally {
          await answer.settle?.(sink);
        }
      })
    : session.stream((sink) => pumpTurn(batches, answer, sink));

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
  try {
    for await (const batch of batches) {
      for (let k = 0; k < batch.length; k += 1) {
        const event = batch[k] as AssistantEvent;
        if (event.type === "finish" || event.type === "error") terminal = event;
        else folder.push(event);
      }
      if (terminal !== undefined) break;
    }
  } catch (error) {
    terminal = thrown(error);
  }
  const answer = await folder.end(terminal ?? UNFINISHED());
  return "error" in answer ? session.fail(answer.error) : session.json(answer.body);
};
