import { GatewayError } from "@proxy/core";
import { createScriptedBackend, type ScriptedTurn } from "@proxy/core/testing";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createRouteStacks, createRouteTable, type RouteConfig } from "../src/index.js";

const request = (model: string) => ({
  model,
  instructions: "",
  history: [],
  input: [{ type: "text" as const, text: "hi" }],
});

/** Two routes, `a` falling back to `b`, each a scripted backend playing `turn` behind its route layers. */
const table = (a: ScriptedTurn, b: ScriptedTurn, extra: Partial<RouteConfig> = {}) => {
  const backends = { a: createScriptedBackend([a]), b: createScriptedBackend([b]) };
  const lines: Array<Record<string, unknown>> = [];
  const routed = createRouteTable(
    createRouteStacks(
      [
        {
          config: { id: "a", backend: "codex", fallbacks: ["b"], ...extra } as RouteConfig,
          backend: backends.a,
        },
        { config: { id: "b", backend: "codex" }, backend: backends.b },
      ],
      pino({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) }),
    ),
  );
  const run = async (signal = new AbortController().signal) => {
    const events = [];
    for await (const e of routed.backend.stream(request("a"), { signal })) events.push(e);
    return events;
  };
  return { backends, lines, run };
};

const textOf = (events: ReadonlyArray<{ type: string; delta?: string }>) =>
  events.map((e) => (e.type === "text-delta" ? e.delta : "")).join("");

describe("fallbacks before the first byte (routing table over scripted backends)", () => {
  it.each([
    ["thrown before stream-start", { chunks: [], startError: new GatewayError("overloaded", "full") }],
    [
      "as the first event after stream-start",
      { chunks: [], error: new GatewayError("rate_limited", "limit") },
    ],
    ["backend_unavailable", { chunks: [], startError: new GatewayError("backend_unavailable", "down") }],
  ] as const)("a failure of a fallback kind %s moves the request to the next route", async (_, failing) => {
    const t = table(failing, { chunks: ["from b"] });
    const events = await t.run();
    expect(textOf(events)).toBe("from b");
    // One stream-start, naming the route that answered; the log names the one that gave way.
    expect(events.filter((e) => e.type === "stream-start")).toEqual([
      { type: "stream-start", model: "scripted", turnId: "turn_1", route: "b" },
    ]);
    expect(t.lines.find((l) => l.msg === "model route: falling back before the first byte")).toMatchObject({
      route: "a",
      fallback: "b",
    });
  });

  it("a failure of another kind is the answer: the next route is not asked", async () => {
    const refused = new GatewayError("context_length_exceeded", "too long");
    const t = table({ chunks: [], error: refused }, { chunks: ["from b"] });
    const events = await t.run();
    expect(events.at(-1)).toEqual({ type: "error", error: refused });
    expect(t.backends.b.requests).toHaveLength(0);
  });

  it("after the first output there is no retry", async () => {
    const t = table(
      { chunks: ["partial ", "more"], errorAfterChunks: 1, error: new GatewayError("rate_limited", "limit") },
      { chunks: ["from b"] },
    );
    const events = await t.run();
    expect(textOf(events)).toBe("partial ");
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "rate_limited" } });
    expect(t.backends.b.requests).toHaveLength(0);
    expect(events[0]).toMatchObject({ type: "stream-start", route: "a" });
  });

  it("every route failing: the last one's error is the answer", async () => {
    const t = table(
      { chunks: [], startError: new GatewayError("rate_limited", "limit a") },
      { chunks: [], startError: new GatewayError("backend_unavailable", "b is down") },
    );
    // The refusal, naming the route that gave it (the last one tried).
    expect(await t.run()).toEqual([
      {
        type: "error",
        error: expect.objectContaining({ kind: "backend_unavailable", message: "b is down" }),
        route: "b",
      },
    ]);
  });

  it("firstByteTimeoutMs: a primary with no output in time is stopped and the next route answers", async () => {
    const t = table({ chunks: ["late"], delayMs: 5_000 }, { chunks: ["from b"] }, { firstByteTimeoutMs: 50 });
    const started = Date.now();
    expect(textOf(await t.run())).toBe("from b");
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(() => t.backends.a.aborts()).toBe(1);
  });

  it("a client that goes away while the primary is held stops it and asks no fallback", async () => {
    const t = table({ chunks: ["late"], delayMs: 5_000 }, { chunks: ["from b"] });
    const controller = new AbortController();
    const run = t.run(controller.signal);
    await expect.poll(() => t.backends.a.active()).toBe(1);
    controller.abort();
    expect(textOf(await run)).toBe("");
    expect(t.backends.b.requests).toHaveLength(0);
  });

  it("a fallback that cannot take the request is skipped, with the reason logged", async () => {
    const t = table({ chunks: [], startError: new GatewayError("rate_limited", "limit") }, { chunks: ["b"] });
    const routed = createRouteTable(
      createRouteStacks(
        [
          { config: { id: "a", backend: "codex", fallbacks: ["b"] }, backend: t.backends.a },
          {
            config: { id: "b", backend: "openai-compatible", baseUrl: "http://x/v1", images: false },
            backend: t.backends.b,
          },
        ],
        pino({ level: "info" }, { write: (l: string) => void t.lines.push(JSON.parse(l)) }),
      ),
    );
    const withImage = {
      ...request("a"),
      input: [{ type: "image" as const, url: "data:image/png;base64,AAAA" }],
    };
    const events = [];
    for await (const e of routed.backend.stream(withImage, { signal: new AbortController().signal }))
      events.push(e);
    expect(events).toEqual([
      { type: "error", error: expect.objectContaining({ kind: "rate_limited" }), route: "a" },
    ]);
    expect(t.backends.b.requests).toHaveLength(0);
    expect(t.lines.find((l) => l.msg === "model route: fallback skipped")).toMatchObject({
      route: "a",
      fallback: "b",
      reason: expect.stringContaining("images"),
    });
  });
});
