import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, type RealHarness, request, startRealHarness, textOf } from "./helpers.js";

// codex retries a broken upstream stream (here once) and reports each attempt as an `error`
// notification with `willRetry:true`.
let h: RealHarness;
beforeAll(async () => {
  h = await startRealHarness({}, { streamMaxRetries: 1 });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe("upstream retries (real app-server, stream_max_retries=1)", () => {
  it("a retry before any output is progress, not failure", async () => {
    h.provider.script([{ truncate: true }, { text: "recovered" }]);
    const events = await collect(h.backend.stream(request(), { signal: new AbortController().signal }));
    expect(events.some((e) => e.type === "error")).toBe(false);
    expect(textOf(events)).toBe("recovered");
    expect(events.at(-1)).toEqual({ type: "finish", finish: { reason: "stop", raw: "completed" } });
  });

  it("a retry after partial output fails the turn instead of streaming the answer twice", async () => {
    h.provider.script([{ chunks: ["Hello wor"], truncate: true }, { text: "Hello world" }]);
    const events = await collect(h.backend.stream(request(), { signal: new AbortController().signal }));
    expect(events.map((e) => e.type)).toEqual(["stream-start", "text-delta", "error"]);
    expect(textOf(events)).toBe("Hello wor");
    expect(events.at(-1)).toMatchObject({ error: { kind: "backend_error", code: "stream_interrupted" } });
  });
});
