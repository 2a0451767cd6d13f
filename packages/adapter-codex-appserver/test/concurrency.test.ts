import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, lastUserText, type RealHarness, request, startRealHarness, textOf } from "./helpers.js";

const N = 16;

let h: RealHarness;
beforeAll(async () => {
  h = await startRealHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe("concurrency on one real app-server", () => {
  it(`${N} parallel turns, all in flight at once, each gets its own output and usage`, async () => {
    let arrived = 0;
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    h.provider.script((r) => {
      const n = Number(lastUserText(r.body).replace("turn ", ""));
      // Every response waits until all N requests reached the provider: proof they overlap.
      if (++arrived === N) openGate();
      return {
        gate,
        chunks: [`reply-${n}-a `, `reply-${n}-b `, `reply-${n}-c`],
        delayMs: 5,
        usage: { inputTokens: 100 + n, outputTokens: n },
      };
    });
    const turns = Array.from({ length: N }, (_, n) =>
      collect(
        h.backend.stream(request({ input: [{ type: "text", text: `turn ${n}` }] }), {
          signal: new AbortController().signal,
        }),
      ),
    );
    const results = await Promise.all(turns);
    results.forEach((events, n) => {
      expect(textOf(events)).toBe(`reply-${n}-a reply-${n}-b reply-${n}-c`);
      expect(events.find((e) => e.type === "usage")).toMatchObject({
        usage: { inputTokens: 100 + n, outputTokens: n, totalTokens: 100 + 2 * n },
      });
      expect(events.at(-1)).toEqual({ type: "finish", finish: { reason: "stop", raw: "completed" } });
    });
    expect(arrived).toBe(N);
    expect(h.backend.readiness()).toMatchObject({ inFlight: 0, queued: 0, restarts: 0 });
  }, 60_000);
});
