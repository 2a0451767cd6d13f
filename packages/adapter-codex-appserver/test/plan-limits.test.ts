import { type GatewayError, isGatewayError } from "@proxy/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDuration } from "../src/rate-limits.js";
import { planUsageHeaders, usageLimitReached } from "../src/testing/index.js";
import { collect, type RealHarness, request, startRealHarness, textOf } from "./helpers.js";

const NOW_MS = Date.UTC(2026, 10, 27, 2, 0, 0);
const NOW = NOW_MS / 1000;
let h: RealHarness;
beforeAll(async () => {
  // A fixed clock for the gateway's side: reset times are measured from it.
  h = await startRealHarness({ now: () => NOW_MS });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const turn = () => collect(h.backend.stream(request(), { signal: new AbortController().signal }));

describe("the plan's usage windows, as codex reports them", () => {
  it("reads the provider's x-codex-* headers through codex, keeps them over a response without, and explains a reached limit", async () => {
    expect(h.backend.readiness().planLimits).toBeUndefined();
    h.provider.script([
      {
        text: "one",
        headers: planUsageHeaders({
          primary: { usedPercent: 42.6, windowMinutes: 300, resetAt: NOW + 7980 },
          secondary: { usedPercent: 10, windowMinutes: 10080, resetAt: NOW + 86_400 },
        }),
      },
      { text: "two" },
      usageLimitReached({ resetsAt: NOW + 7980 }),
    ]);
    expect(textOf(await turn())).toBe("one");
    // codex rounds the percentage to an integer.
    expect(h.backend.readiness().planLimits).toEqual({
      primary: { usedPercent: 43, windowMinutes: 300, resetsAt: NOW + 7980 },
      secondary: { usedPercent: 10, windowMinutes: 10080, resetsAt: NOW + 86_400 },
    });
    // No headers: codex reports null windows, which must not erase what is known.
    expect(textOf(await turn())).toBe("two");
    expect(h.backend.readiness().planLimits?.primary?.usedPercent).toBe(43);

    // The limit: a refusal before stream-start, in words and with Retry-After from the reset time.
    const error = (await turn().then(
      () => undefined,
      (e: unknown) => e,
    )) as GatewayError;
    expect(isGatewayError(error)).toBe(true);
    expect(error).toMatchObject({
      kind: "rate_limited",
      code: "insufficient_quota",
      message: "usage limit reached; resets in 2 h 13 min",
      retryAfterSeconds: 7980,
    });
    expect(h.backend.readiness().planLimits?.primary).toEqual({
      usedPercent: 100,
      windowMinutes: 300,
      resetsAt: NOW + 7980,
    });
  });

  it("words durations for people", () => {
    expect(formatDuration(30)).toBe("under a minute");
    expect(formatDuration(60)).toBe("1 min");
    expect(formatDuration(7980)).toBe("2 h 13 min");
    expect(formatDuration(7200)).toBe("2 h");
    expect(formatDuration(3 * 86_400 + 4 * 3600 + 10)).toBe("3 d 4 h");
  });
});
