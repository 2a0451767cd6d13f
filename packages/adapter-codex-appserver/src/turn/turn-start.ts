import type { BackendRequest } from "@proxy/core";
import type { Logger } from "../logger.js";
import type { CodexTurnInput } from "./codex-input.js";
import type { HeldThread, TurnControl } from "./turn-control.js";
import { unlessAborted } from "./turn-thread.js";

interface TurnStartResult {
  readonly turn: { readonly id: string };
}

/**
 * Starts the request's turn on its thread: on a continued native thread, answers codex's open tool
 * calls with the client's results (codex's turn goes on); otherwise injects the new history items
 * and sends `turn/start`. The turn id, or `undefined` when the request was aborted meanwhile.
 */
export const startTurn = async (
  ctx: { readonly requestTimeoutMs: number; readonly logger: Logger },
  request: BackendRequest,
  thread: HeldThread,
  input: CodexTurnInput,
  control: TurnControl,
  signal: AbortSignal,
  setPhase: (phase: string) => void,
): Promise<string | undefined> => {
  const { channel, continuation } = thread;
  const openTurnId = continuation?.thread.openTurnId;
  if (continuation !== undefined && openTurnId !== undefined) {
    control.started(openTurnId);
    for (const { callId, output } of continuation.answers) channel.answer(callId, output);
    return openTurnId;
  }
  const { threadId } = channel;
  const rpc = thread.proc.connection;
  setPhase("thread/inject_items");
  if (input.inject.length > 0)
    await rpc.request(
      "thread/inject_items",
      { threadId, items: input.inject },
      { signal, timeoutMs: ctx.requestTimeoutMs },
    );
  if (signal.aborted) return undefined;
  setPhase("turn/start");
  // Not cancelled by the signal: if the client aborts meanwhile, the turn still starts inside
  // codex and must be interrupted as soon as its id is known.
  const turnStart = rpc.request<TurnStartResult>(
    "turn/start",
    {
      threadId,
      input: input.input,
      ...(request.reasoningEffort ? { effort: request.reasoningEffort } : {}),
      ...(request.reasoningSummary ? { summary: request.reasoningSummary } : {}),
      ...(request.outputSchema ? { outputSchema: request.outputSchema } : {}),
    },
    { timeoutMs: ctx.requestTimeoutMs },
  );
  control.started(undefined, turnStart);
  turnStart.then(
    (r) => {
      control.started(r.turn.id);
      if (signal.aborted) control.interrupt();
    },
    (err: unknown) => ctx.logger.debug({ err, threadId }, "codex turn/start failed"),
  );
  const ack = await unlessAborted(turnStart, signal);
  return ack?.turn.id;
};
