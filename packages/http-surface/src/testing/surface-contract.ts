import { GatewayError } from "@proxy/core";
import { type TextBackend, type TurnSettings, type TurnSummary, wrapBackend } from "@proxy/core/gateway";
import { createScriptedBackend, o200kEncoding, type Script, type ScriptedBackend } from "@proxy/core/testing";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type HttpError, toHttpError } from "../errors/http-error.js";
import type { SurfaceDepsInput } from "../surface/deps.js";
import type { SurfaceProfile } from "../surface/profile.js";
import { postAndNeverRead, type Served, serveApp } from "./serve.js";
import { withCapacity } from "./with-capacity.js";

/** What the contract needs to know about one HTTP surface. */
export interface SurfaceUnderTest {
  readonly profile: SurfaceProfile;
  /** The surface's sub-app; the suite mounts it at `/v1`. */
  readonly createApp: (deps: SurfaceDepsInput) => Hono;
  /**
   * The turn endpoint under `/v1`, e.g. `/chat/completions`; a function where streamed and whole
   * answers have different endpoints (Gemini's `:streamGenerateContent` and `:generateContent`).
   */
  readonly path: string | ((stream: boolean) => string);
  /** A valid request body asking for a streamed or a whole answer. */
  readonly body: (stream: boolean) => unknown;
  /** The terminal events in a stream's text, each `finish` or `error:<…>` (see `errorTerminal`). */
  readonly terminals: (sse: string) => ReadonlyArray<string>;
  /**
   * How `terminals` labels the stream's terminal error for a failure whose HTTP error (in this
   * surface's shape and status) is `expected`; default `error:<the gateway error's code>`.
   */
  readonly errorTerminal?: ((expected: HttpError, error: GatewayError) => string) | undefined;
}

interface Harness {
  readonly served: Served;
  readonly backend: ScriptedBackend;
  readonly summaries: TurnSummary[];
  readonly url: (stream: boolean) => string;
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

/** What a stream sends between `fromMs` and `toMs` after this call (earlier bytes are dropped). */
const readBetween = async (
  reader: ReadableStreamDefaultReader<Uint8Array>,
  fromMs: number,
  toMs: number,
): Promise<string> => {
  const decoder = new TextDecoder();
  const startedAt = performance.now();
  let text = "";
  let pending: ReturnType<typeof reader.read> | undefined;
  for (;;) {
    const left = startedAt + toMs - performance.now();
    if (left <= 0) break;
    pending ??= reader.read();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), left);
    });
    const result = await Promise.race([pending, timeout]);
    clearTimeout(timer);
    if (result === "timeout") break;
    pending = undefined;
    if (result.done) break;
    const chunk = decoder.decode(result.value, { stream: true });
    if (performance.now() - startedAt >= fromMs) text += chunk;
  }
  return text;
};

/**
 * The behaviour every HTTP surface owes its clients, checked at the wire against a real server:
 * run it from a surface's tests with one call.
 */
export const describeSurfaceContract = (surface: SurfaceUnderTest): void => {
  const { profile } = surface;
  const pathFor = (stream: boolean) =>
    typeof surface.path === "string" ? surface.path : surface.path(stream);
  const httpError = (error: GatewayError) => toHttpError(error, profile.errorBody, profile.errorStatus);
  const errorTerminal = (error: GatewayError) =>
    surface.errorTerminal?.(httpError(error), error) ?? `error:${error.code}`;
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
        tokens: o200kEncoding,
        observer: { onTurnEnd: (s) => summaries.push(s) },
        ...deps,
        settings: { ...SETTINGS, ...deps.settings },
      }),
    );
    const served = await serveApp(app);
    harness = { served, backend, summaries, url: (stream) => `${served.origin}/v1${pathFor(stream)}` };
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
        const res = await post(h.url(stream), surface.body(stream));
        const expected = httpError(refusal);
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
      const res = await post(h.url(true), surface.body(true), client.signal);
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
      const timedOut = new GatewayError("timeout", "The backend hit the request timeout.");
      const streamed = await (await post(h.url(true), surface.body(true))).text();
      expect(surface.terminals(streamed)).toEqual([errorTerminal(timedOut)]);
      const whole = await post(h.url(false), surface.body(false));
      expect(whole.status).toBe(httpError(timedOut).status);
      expect(h.summaries.map((s) => s.error?.kind)).toEqual(["timeout", "timeout"]);
      expect(h.backend.active()).toBe(0);
    });

    it("keeps a silent stream alive in the surface's own form", async () => {
      const h = await start([{ reasoning: ["Thinking"], chunks: ["later"], delayMs: 600_000 }], {
        keepAliveMs: 20,
      });
      const client = new AbortController();
      const res = await post(h.url(true), surface.body(true), client.signal);
      const frame = profile.keepAliveFrame;
      if (frame !== undefined) {
        const text = await readUntil(res, (t) => t.endsWith(frame + frame));
        client.abort();
        expect(text.endsWith(frame + frame)).toBe(true);
        return;
      }
      // No keep-alive form: once what the reasoning produced has arrived, fifteen keep-alive
      // periods of backend silence put no byte on the wire.
      const duringSilence = await readBetween(res.body!.getReader(), 300, 600);
      client.abort();
      expect(duringSilence).toBe("");
    });

    it("a draining gateway ends a running stream with exactly one terminal error", async () => {
      const drained = new GatewayError(
        "backend_unavailable",
        "The gateway shut down before the turn finished.",
      );
      const h = await start([{ chunks: ["Hello", " world"], errorAfterChunks: 1, error: drained }]);
      const text = await (await post(h.url(true), surface.body(true))).text();
      expect(surface.terminals(text)).toEqual([errorTerminal(drained)]);
    });

    it("a finished stream has exactly one terminal event", async () => {
      const h = await start([{ chunks: ["Hello", " world"] }]);
      const text = await (await post(h.url(true), surface.body(true))).text();
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
      const paused = postAndNeverRead(h.served.port, `/v1${pathFor(true)}`, surface.body(true));
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
        postAndNeverRead(h.served.port, `/v1${pathFor(true)}`, surface.body(true)),
      );
      await vi.waitFor(() => expect(h.backend.active()).toBe(2));
      const other = await post(h.url(false), surface.body(false));
      expect(other.status).toBe(200);
      await vi.waitFor(() => expect(h.backend.active()).toBe(0));
      for (const p of paused) p.destroy();
    });
  });
};

const countBytes = (backend: TextBackend, count: (n: number) => void): TextBackend =>
  wrapBackend(backend, {
    // The event view, one event per batch: produced as the client pulls, as a live model is.
    async *stream(request, options) {
      for await (const event of backend.stream(request, options)) {
        if (event.type === "text-delta") count(event.delta.length);
        yield [event];
      }
    },
  });
