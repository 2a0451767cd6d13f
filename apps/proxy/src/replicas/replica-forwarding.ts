import type { BackendRequest } from "@proxy/core";
import type { BackendBatch, BackendMiddleware, ConversationOwners } from "@proxy/core/gateway";
import type { ReplicaTurnOutcome } from "../observability/backend-metrics.js";
import type { Logger } from "../observability/logger.js";
import { forwardTurn } from "./forward-turn.js";
import type { Ownership } from "./ownership.js";

export interface ForwardingDeps {
  readonly self: string;
  readonly secret: string;
  readonly timeoutMs: number;
  readonly owners: ConversationOwners;
  readonly ownership: Ownership;
  readonly keysOf: (request: BackendRequest) => Promise<ReadonlyArray<string>>;
  readonly logger: Logger;
  /** Told where each turn with history ran. */
  readonly observe?: ((outcome: ReplicaTurnOutcome) => void) | undefined;
}

const isTerminal = (batch: BackendBatch) => batch.some((e) => e.type === "finish" || e.type === "error");

/**
 * A local turn whose terminal batch waits for the inner turn to end and for what it changed in
 * the owners table to be written: the thread it parked is recorded before the client hears the
 * turn is over, so its next turn, wherever it lands, finds the owner.
 */
export async function* settledLocally(
  batches: AsyncIterable<BackendBatch>,
  ownership: Ownership,
): AsyncGenerator<BackendBatch> {
  let terminal: BackendBatch | undefined;
  for await (const batch of batches) {
    if (terminal !== undefined) yield terminal;
    terminal = undefined;
    if (isTerminal(batch)) terminal = batch;
    else yield batch;
  }
  await ownership.settled();
  if (terminal !== undefined) yield terminal;
}

/**
 * The replicas' layer (innermost, around the codex backend): a turn continuing a conversation whose
 * live thread another replica holds (the owners table says so) is passed to that replica over the
 * internal call and its events streamed back, so the conversation stays on one thread and one
 * `prompt_cache_key`. Everything else runs here: new conversations, conversations held here or by
 * nobody, and a turn whose owner is gone, refuses or does not answer in time before its first event
 * (a fresh thread here: one cache miss, never a wrong answer).
 */
export const replicaForwarding = (deps: ForwardingDeps): BackendMiddleware => ({
  async stream(request, options, next) {
    const local = (outcome?: ReplicaTurnOutcome) => {
      if (outcome) deps.observe?.(outcome);
      return settledLocally(next(request, options), deps.ownership);
    };
    const keys = await deps.keysOf(request);
    if (keys.length === 0) return local();
    const mine = deps.ownership.lastHeld(keys);
    // The common case: this replica holds the whole conversation; the store is not asked.
    if (mine === keys.length - 1) return local("here");
    const found = await deps.owners.lookup(keys).catch((err: unknown) => {
      deps.logger.warn({ err }, "could not look up a conversation's owner; running it here");
      return undefined;
    });
    if (found === undefined || found.owner === deps.self || keys.indexOf(found.key) <= mine)
      return local("here");
    const forwarded = await forwardTurn(
      { key: found.key, request, heartbeatMs: Math.max(50, Math.floor(deps.timeoutMs / 4)) },
      { owner: found.owner, secret: deps.secret, timeoutMs: deps.timeoutMs, signal: options.signal },
    );
    if (forwarded.kind === "streaming") {
      deps.observe?.("forwarded");
      deps.logger.debug({ owner: found.owner }, "turn passed to the replica holding its conversation");
      return forwarded.batches;
    }
    if (options.signal.aborted) return local(); // the client left meanwhile: the turn ends at once
    deps.logger.info(
      { owner: found.owner, why: forwarded.why },
      "the replica holding this conversation did not take the turn; running it here on a fresh thread",
    );
    return local("owner_unavailable");
  },
});
