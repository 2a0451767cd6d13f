import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BackendEvent } from "@proxy/core/gateway";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type CodexBackend, type CodexBackendOptions, createCodexBackend } from "../src/index.js";
import { collect, request, textOf } from "./helpers.js";

const FAKE = fileURLToPath(new URL("./fixtures/fake-app-server.mjs", import.meta.url));

let dir: string;
const opened: CodexBackend[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "fake-app-server-"));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((b) => b.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A backend over the fake app-server; `log()` returns the methods the fake received so far. */
const fakeBackend = (options: Partial<CodexBackendOptions> = {}, env: NodeJS.ProcessEnv = {}) => {
  const logFile = join(dir, `log-${opened.length}-${Date.now()}`);
  const backend = createCodexBackend({
    env: { ...process.env, CODEX_BIN: FAKE, FAKE_APP_SERVER_LOG: logFile, ...env },
    passEnv: ["FAKE_APP_SERVER_LOG", "FAKE_APP_SERVER_STUBBORN"],
    restartBackoffMs: { initial: 20, max: 200 },
    ...options,
  });
  opened.push(backend);
  const log = () => {
    try {
      return readFileSync(logFile, "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  };
  return { backend, log };
};
const say = (text: string) => request({ input: [{ type: "text", text }] });
const run = (backend: CodexBackend, text: string, signal = new AbortController().signal) =>
  collect(backend.stream(say(text), { signal }));

describe("supervision and faults (fake app-server via CODEX_BIN)", () => {
  it("a consumer that stops reading pauses codex's output: a bounded number of bytes held, nothing lost or failed", async () => {
    const bound = 16 * 1024;
    const { backend } = fakeBackend({ maxPendingNotificationBytes: bound, stalledReaderMs: 60_000 });
    const iterator = backend
      .stream(say("flood 20000"), { signal: new AbortController().signal })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "stream-start" });
    await new Promise((r) => setTimeout(r, 500)); // the fake writes 20,000 lines (2 MB) while nobody reads
    // Held: the bound plus what one read of the pipe delivered after it was crossed.
    expect(backend.heldNotificationBytes()).toBeGreaterThan(bound);
    expect(backend.heldNotificationBytes()).toBeLessThan(bound + 64 * 1024 * 3);
    const rest: BackendEvent[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(textOf(rest)).toBe(Array.from({ length: 20_000 }, (_, i) => `${i} `).join(""));
    expect(rest.at(-1)).toMatchObject({ type: "finish" });
    expect(backend.heldNotificationBytes()).toBe(0);
  });

  it("a paused reader's deltas are held as their text: 20,000 deltas, 2.5 MB as notifications, hold under 256 KiB", async () => {
    const { backend } = fakeBackend();
    const iterator = backend
      .stream(say("flood 20000"), { signal: new AbortController().signal })
      [Symbol.asyncIterator]();
    await iterator.next();
    // Until the fake has written everything and the gateway has queued it: what is held stops growing.
    for (let last = -1; backend.heldNotificationBytes() !== last; ) {
      last = backend.heldNotificationBytes();
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(backend.heldNotificationBytes()).toBeGreaterThan(64 * 1024);
    expect(backend.heldNotificationBytes()).toBeLessThan(256 * 1024);
    const rest: BackendEvent[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(textOf(rest)).toBe(Array.from({ length: 20_000 }, (_, i) => `${i} `).join(""));
    // The runs arrive as a few long deltas instead of 20,000 short ones.
    expect(rest.filter((e) => e.type === "text-delta").length).toBeLessThan(1_000);
  });

  it("while codex's output waits for a reader that takes nothing for stalledReaderMs, that turn is stopped and the others go on", async () => {
    const { backend } = fakeBackend({ maxPendingNotificationBytes: 16 * 1024, stalledReaderMs: 300 });
    const iterator = backend
      .stream(say("flood 20000"), { signal: new AbortController().signal })
      [Symbol.asyncIterator]();
    await iterator.next();
    await new Promise((r) => setTimeout(r, 50));
    // Another turn on the same app-server waits behind the paused output, then is served.
    const other = run(backend, "hello other");
    expect(textOf(await other)).toBe("echo:hello other");
    const rest: BackendEvent[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(rest.at(-1)).toMatchObject({
      type: "error",
      error: {
        kind: "timeout",
        message: "the client stopped reading: it took nothing for 300 ms while codex's output waited for it",
      },
    });
    expect(backend.heldNotificationBytes()).toBe(0);
  });

  it("a crash mid-turn ends that turn with backend_unavailable; the next turn is served after a restart", async () => {
    const { backend } = fakeBackend();
    const events = await run(backend, "crash now");
    expect(events.map((e) => e.type)).toEqual(["stream-start", "text-delta", "error"]);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "backend_unavailable" } });
    expect(textOf(await run(backend, "hello again"))).toBe("echo:hello again");
    expect(backend.readiness()).toMatchObject({ ready: true, restarts: 1 });
  });

  it("garbage, truncated, oversized and unknown stdout lines are survived; server requests are answered", async () => {
    const { backend } = fakeBackend({ maxLineLength: 1_000 });
    const events = await run(backend, "garbage please");
    expect(events.at(-1)).toEqual({ type: "finish", finish: { reason: "stop", raw: "completed" } });
    const answers = JSON.parse(textOf(events));
    expect(answers.approval).toEqual({ id: 0, result: { decision: "decline" } });
    expect(answers.unknown).toMatchObject({ id: 1, error: { code: -32601 } });
    expect(textOf(await run(backend, "still alive"))).toBe("echo:still alive");
    expect(backend.readiness().restarts).toBe(0);
  });

  it("aborting while turn/start is never answered ends the turn", async () => {
    const { backend, log } = fakeBackend();
    await backend.warmup();
    const controller = new AbortController();
    const turn = run(backend, "hang-turn-start", controller.signal);
    await vi.waitFor(() => expect(log()).toContain("turn/start"));
    controller.abort();
    expect(await turn).toEqual([]);
    expect(backend.readiness().inFlight).toBe(0);
  });

  it("a request timeout ends a turn whose turn/start is never answered", async () => {
    const { backend } = fakeBackend({ requestTimeoutMs: 300 });
    const failure = await run(backend, "hang-turn-start").catch((e: unknown) => e);
    expect(failure).toMatchObject({ kind: "timeout" });
  });

  it("abort mid-turn sends turn/interrupt, then thread/unsubscribe", async () => {
    const { backend, log } = fakeBackend();
    const controller = new AbortController();
    const seen: BackendEvent[] = [];
    for await (const event of backend.stream(say("hang-turn"), { signal: controller.signal })) {
      seen.push(event);
      controller.abort();
    }
    expect(seen.map((e) => e.type)).toEqual(["stream-start"]);
    await vi.waitFor(() => expect(log()).toContain("thread/unsubscribe"));
    const methods = log();
    expect(methods.indexOf("turn/interrupt")).toBeGreaterThan(methods.indexOf("turn/start"));
    expect(methods.indexOf("thread/unsubscribe")).toBeGreaterThan(methods.indexOf("turn/interrupt"));
  });

  it("the abort itself sends turn/interrupt, even if the consumer never pulls again", async () => {
    const { backend, log } = fakeBackend();
    const controller = new AbortController();
    const it = backend.stream(say("hang-turn"), { signal: controller.signal })[Symbol.asyncIterator]();
    expect((await it.next()).value).toMatchObject({ type: "stream-start" });
    controller.abort();
    await vi.waitFor(() => expect(log()).toContain("turn/interrupt"));
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it("turnTimeoutMs ends a turn that never completes with a timeout error and interrupts it", async () => {
    const { backend, log } = fakeBackend({ turnTimeoutMs: 200 });
    await backend.warmup(); // the 200 ms are the turn's, not the app-server's start
    const events = await run(backend, "hang-turn");
    expect(events.map((e) => e.type)).toEqual(["stream-start", "error"]);
    expect(events.at(-1)).toMatchObject({ error: { kind: "timeout" } });
    await vi.waitFor(() => expect(log()).toContain("turn/interrupt"));
  });

  it("beyond maxInFlight + maxQueue requests are refused as overloaded; a queued request that aborts leaves the queue", async () => {
    const { backend } = fakeBackend({ maxInFlight: 2, maxQueue: 1 });
    const running = [new AbortController(), new AbortController()];
    const iterators = running.map((c) =>
      backend.stream(say("hang-turn"), { signal: c.signal })[Symbol.asyncIterator](),
    );
    for (const it of iterators) expect((await it.next()).value).toMatchObject({ type: "stream-start" });

    const queuedAbort = new AbortController();
    const queued = run(backend, "queued", queuedAbort.signal);
    await vi.waitFor(() => expect(backend.readiness().queued).toBe(1));
    expect(backend.readiness()).toMatchObject({ ready: false, inFlight: 2, capacity: 2 });

    const refused = await run(backend, "one too many").catch((e: unknown) => e);
    expect(refused).toMatchObject({
      kind: "overloaded",
      message: "the codex backend is at capacity; retry shortly",
    });
    expect((refused as { retryAfterSeconds?: number }).retryAfterSeconds).toBeGreaterThan(0);

    queuedAbort.abort();
    expect(await queued).toEqual([]);
    expect(backend.readiness().queued).toBe(0);

    for (const c of running) c.abort();
    await Promise.all(iterators.map((it) => it.next()));
    await vi.waitFor(() => expect(backend.readiness().inFlight).toBe(0));
    expect(textOf(await run(backend, "free again"))).toBe("echo:free again");
  });

  it("close() escalates to SIGKILL when the app-server ignores stdin EOF and SIGTERM", async () => {
    const { backend, log } = fakeBackend(
      { shutdownGraceMs: { stdin: 100, term: 100 } },
      { FAKE_APP_SERVER_STUBBORN: "1" },
    );
    await backend.warmup();
    const pid = Number(
      log()
        .find((l) => l.startsWith("pid "))
        ?.slice(4),
    );
    expect(pid).toBeGreaterThan(0);
    await backend.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it("an unusable codex binary makes requests fail with backend_unavailable, not hang", async () => {
    const backend = createCodexBackend({
      codexBin: join(dir, "no-such-codex"),
      startTimeoutMs: 2_000,
      restartBackoffMs: { initial: 20, max: 100 },
    });
    opened.push(backend);
    const failure = await run(backend, "hi").catch((e: unknown) => e);
    expect(failure).toMatchObject({ kind: "backend_unavailable" });
    expect(backend.readiness()).toMatchObject({ ready: false });
  });
});
