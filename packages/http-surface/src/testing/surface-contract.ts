import { GatewayError, type TextBackend, type TurnSettings, type TurnSummary } from "@proxy/core";
import { createScriptedBackend, type Script, type ScriptedBackend } from "@proxy/core/testing";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toHttpError } from "../http-error.js";
import type { SurfaceDepsInput } from "../surface-deps.js";
import type { SurfaceProfile } from "../turn-session.js";
import { postAndNeverRead, type Served, serveApp } from "./serve.js";
import { withCapacity } from "./with-capacity.js";

/** What the contract needs to know about one HTTP surface. */
export interface SurfaceUnderTest {
  readonly profile: SurfaceProfile;
  /** The surface's sub-app; the suite mounts it at `/v1`. */
  readonly createApp: (deps: SurfaceDepsInput) => Hono;
  /** The turn endpoint under `/v1`, e.g. `/chat/completions`. */
  readonly path: string;
  /** A valid request body asking for a streamed or a whole answer. */
  readonly body: (stream: boolean) => unknown;
  /** The terminal events in a stream's text, each `finish` or `error:<code>`. */
  readonly terminals: (sse: string) => ReadonlyArray<string>;
}

interface Harness {
  readonly served: Served;
  readonly backend: ScriptedBackend;
  readonly summaries: TurnSummary[];
  readonly url: string;
}

const SETTINGS: Partial<TurnSettings> = { stopGraceMs: 0 };
const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: signal ?? null,
  });

/** Reads a streamed answer until `until` matches what arrived (or the stream ends). */
const readUntil = async (res: Response, until: (text: string) => boolean): Promise<string> => {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
};

/**
 * The behaviour every HTTP surface owes its clients, checked at the wire against a real server:
 * run it from a surface's tests with one call.
 */
export const describeSurfaceContract = (surface: SurfaceUnderTest): void => {
  const { profile } = surface;
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.served.close();
    harness = undefined;
  });

  const start = async (
    script: Script,
    deps: Partial<SurfaceDepsInput> = {},
    wrap: (b: ScriptedBackend) => TextBackend = (b) => b,
  ): Promise<Harness> => {
    const backend = createScriptedBackend(script);
    const summaries: TurnSummary[] = [];
    const app = new Hono().route(
      "/v1",
      surface.createApp({
        backend: wrap(backend),
        observer: { onTurnEnd: (s) => summaries.push(s) },
        ...deps,
        settings: { ...SETTINGS, ...deps.settings },
      }),
    );
    const served = await serveApp(app);
    harness = { served, backend, summaries, url: `${served.origin}/v1${surface.path}` };
    return harness;
  };

  describe(`HTTP surface contract: ${profile.api}`, () => {
    it.each([false, true])(
      "refuses before the first byte with a status in its own shape (stream: %s)",
      async (stream) => {
        const refusal = new GatewayError("overloaded", "The gateway is at capacity.", {
          retryAfterSeconds: 3,
        });
        const h = await start([{ chunks: [], startError: refusal }]);
        const res = await post(h.url, surface.body(stream));
        const expected = toHttpError(refusal, profile.errorBody);
        expect(res.status).toBe(expected.status);
        expect(res.headers.get("retry-after")).toBe("3");
        expect(await res.json()).toEqual(expected.body);
        expect(h.summaries.map((s) => s.error?.kind)).toEqual(["overloaded"]);
      },
    );

    // Timed on a shared machine: a load spike can stall this process itself, so up to three tries;
    // an abort that waits for anything (a timer, the next event) fails all three.
    it("a client that disconnects aborts the backend turn within 100 ms", { retry: 2 }, async () => {
      const h = await start([{ chunks: ["Hello", " never"], hangAfterChunks: 1 }]);
      const client = new AbortController();
      const res = await post(h.url, surface.body(true), client.signal);
      await readUntil(res, (text) => text.includes("Hello"));
      expect(h.backend.active()).toBe(1);
      const abortedAt = performance.now();
      client.abort();
      await vi.waitFor(() => expect(h.backend.active()).toBe(0), { timeout: 1_000, interval: 2 });
      expect(performance.now() - abortedAt).toBeLessThan(100);
      await vi.waitFor(() => expect(h.summaries.map((s) => s.error?.kind)).toEqual(["cancelled"]));
    });

    it("the request deadline ends the turn with the surface's timeout error", async () => {
      const h = await start([{ chunks: ["Hello", " never"], hangAfterChunks: 1 }], {
        settings: { requestTimeoutMs: 300 },
      });
      const streamed = await (await post(h.url, surface.body(true))).text();
      expect(surface.terminals(streamed)).toEqual(["error:timeout"]);
      const whole = await post(h.url, surface.body(false));
      expect(whole.status).toBe(504);
      expect(h.summaries.map((s) => s.error?.kind)).toEqual(["timeout", "timeout"]);
      expect(h.backend.active()).toBe(0);
    });

    it("keeps a silent stream alive in the surface's own form", async () => {
      const h = await start([{ reasoning: ["Thinking"], chunks: ["later"], delayMs: 600_000 }], {
        keepAliveMs: 20,
      });
      const client = new AbortController();
      const res = await post(h.url, surface.body(true), client.signal);
      const frame = profile.keepAliveFrame;
      const startedAt = performance.now();
      const text = await readUntil(
        res,
        (t) => (frame !== undefined && t.endsWith(frame + frame)) || performance.now() - startedAt > 300,
      );
      client.abort();
      if (frame !== undefined) expect(text.endsWith(frame + frame)).toBe(true);
      else expect(text).not.toMatch(/^(: ping|event: ping)/m);
    });

    it("a draining gateway ends a running stream with exactly one terminal error", async () => {
      const drained = new GatewayError(
        "backend_unavailable",
        "The gateway shut down before the turn finished.",
      );
      const h = await start([{ chunks: ["Hello", " world"], errorAfterChunks: 1, error: drained }]);
      const text = await (await post(h.url, surface.body(true))).text();
      expect(surface.terminals(text)).toEqual(["error:backend_unavailable"]);
    });

    it("a finished stream has exactly one terminal event", async () => {
      const h = await start([{ chunks: ["Hello", " world"] }]);
      const text = await (await post(h.url, surface.body(true))).text();
      expect(surface.terminals(text)).toEqual(["finish"]);
      expect(h.summaries.map((s) => s.finish)).toEqual(["stop"]);
    });

    it("a client that stops reading is dropped after the write timeout: slot freed, backend stopped, memory bounded", async () => {
      const chunk = "x".repeat(16 * 1024);
      let produced = 0;
      const h = await start(
        [{ chunks: Array.from({ length: 2_048 }, () => chunk) }], // 32 MiB
        { writeTimeoutMs: 300 },
        (backend) => countBytes(backend, (n) => (produced += n)),
      );
      const paused = postAndNeverRead(h.served.port, `/v1${surface.path}`, surface.body(true));
      await vi.waitFor(() => expect(h.summaries.map((s) => s.error?.kind)).toEqual(["timeout"]), {
        timeout: 5_000,
      });
      expect(h.backend.active()).toBe(0);
      paused.destroy();
      // Socket buffers take a few MiB; the rest of the answer was never pulled from the backend.
      expect(produced).toBeLessThan(16 * 1024 * 1024);
    });

    it("two clients that never read do not starve other requests", async () => {
      const chunk = "x".repeat(16 * 1024);
      const h = await start(
        (_request, turn) =>
          turn < 2 ? { chunks: Array.from({ length: 2_048 }, () => chunk) } : { chunks: ["ok"] },
        { writeTimeoutMs: 300 },
        (backend) => withCapacity(backend, 2),
      );
      const paused = [0, 1].map(() =>
        postAndNeverRead(h.served.port, `/v1${surface.path}`, surface.body(true)),
      );
      await vi.waitFor(() => expect(h.backend.active()).toBe(2));
      const other = await post(h.url, surface.body(false));
      expect(other.status).toBe(200);
      await vi.waitFor(() => expect(h.backend.active()).toBe(0));
      for (const p of paused) p.destroy();
    });
  });
};

const countBytes = (backend: TextBackend, count: (n: number) => void): TextBackend => ({
  ...backend,
  async *stream(request, options) {
    for await (const event of backend.stream(request, options)) {
      if (event.type === "text-delta") count(event.delta.length);
      yield event;
    }
  },
});
