import { GatewayError } from "@proxy/core";
import { type BackendEvent, wrapBackend } from "@proxy/core/gateway";
import { createScriptedBackend, type ScriptedTurn } from "@proxy/core/testing";
import { describe, expect, it } from "vitest";
import { answeringRoute } from "../src/index.js";

const request = { model: "m", instructions: "", history: [], input: [{ type: "text" as const, text: "hi" }] };

const eventsOf = async (turn: ScriptedTurn) => {
  const backend = wrapBackend(createScriptedBackend([turn]), answeringRoute("local"));
  const events: BackendEvent[] = [];
  for await (const batch of backend.stream(request, { signal: new AbortController().signal }).batches())
    events.push(...batch);
  return events;
};

describe("answeringRoute: the route travels in the turn's own stream", () => {
  it("names the route on stream-start and leaves every other event as the backend sent it", async () => {
    const events = await eventsOf({ chunks: ["a", "b"] });
    expect(events[0]).toEqual({ type: "stream-start", model: "scripted", turnId: "turn_1", route: "local" });
    expect(events.slice(1).map((e) => e.type)).toEqual(["text-delta", "text-delta", "usage", "finish"]);
    expect(events.slice(1).some((e) => "route" in e)).toBe(false);
  });

  it("a refusal thrown before the turn started becomes the same refusal as an event naming the route", async () => {
    const refusal = new GatewayError("rate_limited", "limit", { retryAfterSeconds: 3 });
    expect(await eventsOf({ chunks: [], startError: refusal })).toEqual([
      { type: "error", error: refusal, route: "local" },
    ]);
  });

  it("a failure after the start keeps its shape (the route is already on stream-start)", async () => {
    const failure = new GatewayError("backend_error", "broke");
    const events = await eventsOf({ chunks: ["x"], errorAfterChunks: 1, error: failure });
    expect(events[0]).toMatchObject({ type: "stream-start", route: "local" });
    expect(events.at(-1)).toEqual({ type: "error", error: failure });
  });
});
