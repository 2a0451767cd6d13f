import { type BackendEvent, type BackendMiddleware, wrapBackend } from "@proxy/core/gateway";
import { createScriptedBackend } from "@proxy/core/testing";
import { describe, expect, it } from "vitest";
import { createDrain } from "../src/backend/drain.js";

const request = { model: "m", instructions: "", history: [], input: [{ type: "text" as const, text: "hi" }] };

/** The drain over a scripted turn that hangs after its first chunk, with the signal the backend got. */
const hangingTurn = () => {
  const scripted = createScriptedBackend([{ chunks: ["a", "b"], hangAfterChunks: 1 }]);
  const seen: AbortSignal[] = [];
  const spy: BackendMiddleware = {
    stream: (r, options, next) => {
      seen.push(options.signal);
      return next(r, options);
    },
  };
  const drain = createDrain();
  return { scripted, seen, drain, backend: wrapBackend(scripted, [drain.middleware, spy]) };
};

/** Reads the turn until its end, draining the gateway once its first text arrived. */
const readDraining = async (
  t: ReturnType<typeof hangingTurn>,
  options: { readonly signal: AbortSignal; readonly abort?: () => void },
) => {
  const events: BackendEvent[] = [];
  for await (const event of t.backend.stream(request, options)) {
    events.push(event);
    if (event.type === "text-delta") void t.drain.drain(0);
  }
  return events;
};

describe("the drain stops running turns at its deadline", () => {
  it("through the caller's own abort when it gives one: no controller of its own in front of the caller's", async () => {
    const t = hangingTurn();
    const caller = new AbortController();
    const events = await readDraining(t, { signal: caller.signal, abort: () => caller.abort() });
    // The backend ran on the caller's signal itself, and the caller's abort stopped it.
    expect(t.seen).toEqual([caller.signal]);
    expect(caller.signal.aborted).toBe(true);
    expect(t.scripted.aborts()).toBe(1);
    expect(events.at(-1)).toMatchObject({
      type: "error",
      error: { kind: "backend_unavailable", message: "The gateway shut down before the turn finished." },
    });
    expect(t.drain.activeTurns()).toBe(0);
  });

  it("through a controller of its own for a caller that gives no abort, leaving the caller's signal alone", async () => {
    const t = hangingTurn();
    const caller = new AbortController();
    const events = await readDraining(t, { signal: caller.signal });
    expect(t.seen).toHaveLength(1);
    expect(t.seen[0]).not.toBe(caller.signal);
    expect(t.seen[0]?.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "backend_unavailable" } });
  });

  it("a caller's abort reaches the backend through the layer's own controller", async () => {
    const t = hangingTurn();
    const caller = new AbortController();
    const events: BackendEvent[] = [];
    for await (const event of t.backend.stream(request, { signal: caller.signal })) {
      events.push(event);
      if (event.type === "text-delta") caller.abort();
    }
    expect(t.seen[0]?.aborted).toBe(true);
    expect(t.scripted.aborts()).toBe(1);
  });
});
