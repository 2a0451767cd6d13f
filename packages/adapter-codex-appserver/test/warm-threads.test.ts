import { spawn as nodeSpawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { BackendRequest } from "@proxy/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type CodexBackend, type CodexBackendOptions, createCodexBackend } from "../src/index.js";
import type { RecordedRequest, ScriptedResponse } from "../src/testing/index.js";
import { collect, type RealHarness, request, startRealHarness, textOf } from "./helpers.js";

const threadIdOf = (r: RecordedRequest) => String(r.headers["thread-id"]);
type Item = { type?: string; role?: string; call_id?: string; output?: unknown; content?: unknown };
const inputOf = (r: RecordedRequest) => (r.body.input ?? []) as Item[];
const toolOutputs = (r: RecordedRequest) =>
  inputOf(r).filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output");

const turn = (backend: CodexBackend, overrides: Partial<BackendRequest> = {}) =>
  collect(backend.stream(request(overrides), { signal: new AbortController().signal }));
/** Waits until no warm thread is still starting (a turn's refill begins before its iterable ends). */
const settled = (backend: CodexBackend, ready?: number) =>
  vi.waitFor(
    () =>
      expect(backend.warmThreads()).toMatchObject({ starting: 0, ...(ready === undefined ? {} : { ready }) }),
    { timeout: 15_000, interval: 20 },
  );
/** A request body with what differs per thread and turn (UUIDs: thread, item ids; the start time) replaced. */
const comparable = (r: RecordedRequest) =>
  JSON.parse(
    JSON.stringify(r.body)
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "ID")
      .replace(/turn_started_at_unix_ms\\":\d+/g, "turn_started_at"),
  );

/** A model that tries to run a command and a code-mode patch, each aimed at a marker file. */
const attack = (dir: string): ScriptedResponse => ({
  items: [
    {
      type: "function_call",
      id: "fc_exec",
      call_id: "call_exec",
      name: "exec_command",
      arguments: JSON.stringify({ cmd: `touch ${join(dir, "exec_command")}` }),
    },
    {
      type: "custom_tool_call",
      id: "ctc_exec",
      call_id: "call_code_mode",
      name: "exec",
      input: `await tools.exec_command({ cmd: "touch ${join(dir, "code_mode_exec")}" });`,
    },
  ],
});

describe("warm threads over the real app-server", () => {
  let h: RealHarness;
  let markers: string;
  beforeAll(async () => {
    markers = mkdtempSync(join(tmpdir(), "warm-markers-"));
    h = await startRealHarness({}, {}, { text: "ok" });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    rmSync(markers, { recursive: true, force: true });
  });

  it("from a config's third turn on, turns run on threads started ahead of time; each thread serves one turn", async () => {
    h.provider.script(() => ({ text: "ok" }));
    const instructions = "Config one.";
    const before = h.provider.requests.length;
    const handedOut = h.backend.warmThreads().handedOut;
    expect(textOf(await turn(h.backend, { instructions }))).toBe("ok");
    await settled(h.backend, 0); // seen once: nothing started ahead
    expect(textOf(await turn(h.backend, { instructions }))).toBe("ok");
    await settled(h.backend, 1);
    expect(textOf(await turn(h.backend, { instructions }))).toBe("ok");
    expect(h.backend.warmThreads().handedOut).toBe(handedOut + 1);
    const burst = await Promise.all(Array.from({ length: 5 }, () => turn(h.backend, { instructions })));
    for (const events of burst) expect(textOf(events)).toBe("ok");
    expect(h.backend.warmThreads().handedOut).toBeGreaterThanOrEqual(handedOut + 2);
    const threads = h.provider.requests.slice(before).map(threadIdOf);
    expect(threads).toHaveLength(8);
    expect(new Set(threads).size).toBe(8);
    expect(h.backend.readiness().detail).toMatch(/app-server\(s\) ready/);
  });

  it("a warm thread sends upstream exactly what a fresh one sends, and serves only its own config", async () => {
    h.provider.script(() => ({ text: "ok" }));
    const a = { instructions: "PROMPT ALPHA", model: "gpt-6.1-sol" };
    const history = [{ role: "user" as const, content: [{ type: "text" as const, text: "earlier" }] }];
    await turn(h.backend, { ...a, history });
    const first = h.provider.requests.length;
    await turn(h.backend, { ...a, history });
    await settled(h.backend);
    const handedOut = h.backend.warmThreads().handedOut;
    await turn(h.backend, { ...a, history });
    expect(h.backend.warmThreads().handedOut).toBe(handedOut + 1);
    const [fresh, warm] = h.provider.requests.slice(first) as [RecordedRequest, RecordedRequest];
    expect(threadIdOf(warm)).not.toBe(threadIdOf(fresh));
    expect(comparable(warm)).toEqual(comparable(fresh));

    // Another prompt never gets ALPHA's thread (one is ready): it starts its own, says only its own prompt.
    await settled(h.backend);
    expect(h.backend.warmThreads().ready).toBeGreaterThan(0);
    const beta = h.provider.requests.length;
    await turn(h.backend, { ...a, instructions: "PROMPT BETA", history });
    expect(h.backend.warmThreads().handedOut).toBe(handedOut + 1);
    const body = JSON.stringify(h.provider.requests[beta]?.body);
    expect(body).toContain("PROMPT BETA");
    expect(body).not.toContain("PROMPT ALPHA");
  });

  it("a warm thread is sealed like a fresh one: a model's tool calls are refused and nothing runs", async () => {
    h.provider.script((r) => (toolOutputs(r).length > 0 ? { text: "nothing happened" } : attack(markers)));
    const instructions = "Sealed warm config.";
    await turn(h.backend, { instructions });
    await turn(h.backend, { instructions });
    await settled(h.backend);
    const handedOut = h.backend.warmThreads().handedOut;
    const before = h.provider.requests.length;
    const events = await turn(h.backend, { instructions });
    expect(h.backend.warmThreads().handedOut).toBe(handedOut + 1);
    expect(textOf(events)).toBe("nothing happened");
    const followUp = h.provider.requests.slice(before).find((r) => toolOutputs(r).length > 0);
    const outputs = toolOutputs(followUp as RecordedRequest);
    expect(outputs.map((o) => o.call_id).sort()).toEqual(["call_code_mode", "call_exec"]);
    for (const o of outputs) expect(String(o.output)).toMatch(/^unsupported (custom tool )?call: /);
    expect(readdirSync(markers)).toEqual([]);
  });
});

describe("warm threads across idle time and restarts (real app-server)", () => {
  let h: RealHarness;
  const pids: number[] = [];
  beforeAll(async () => {
    h = await startRealHarness(
      {
        threadUnloadDelaySecs: 1,
        restartBackoffMs: { initial: 20, max: 200 },
        spawn: (c, a, o) => {
          const child = nodeSpawn(c, [...a], o);
          if (child.pid !== undefined) pids.push(child.pid);
          return child;
        },
      },
      {},
      { text: "ok" },
    );
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it("a warm thread left idle past codex's unload delay still serves its turn", async () => {
    h.provider.script(() => ({ text: "still here" }));
    await turn(h.backend);
    await turn(h.backend);
    await settled(h.backend, 1);
    await new Promise((r) => setTimeout(r, 2_500));
    const handedOut = h.backend.warmThreads().handedOut;
    expect(textOf(await turn(h.backend))).toBe("still here");
    expect(h.backend.warmThreads().handedOut).toBe(handedOut + 1);
  });

  it("a restarted app-server starts without the dead one's warm threads, and turns go on", async () => {
    h.provider.script(() => ({ text: "after restart" }));
    await settled(h.backend, 1);
    const handedOut = h.backend.warmThreads().handedOut;
    process.kill(pids.at(-1) as number, "SIGKILL");
    await vi.waitFor(() => expect(h.backend.readiness()).toMatchObject({ ready: true, restarts: 1 }), {
      timeout: 15_000,
    });
    expect(h.backend.warmThreads()).toMatchObject({ ready: 0, starting: 0 });
    expect(textOf(await turn(h.backend))).toBe("after restart");
    expect(h.backend.warmThreads().handedOut).toBe(handedOut);
    // The new process learns the config afresh: warm again from its second turn.
    await turn(h.backend);
    await settled(h.backend, 1);
  });
});

describe("warm threads: off switch, stalls and shutdown (fake app-server via CODEX_BIN)", () => {
  const FAKE = fileURLToPath(new URL("./fixtures/fake-app-server.mjs", import.meta.url));
  const fake = (options: Partial<CodexBackendOptions> = {}, threadStarts?: number) => {
    const dir = mkdtempSync(join(tmpdir(), "warm-fake-"));
    const logFile = join(dir, "log");
    const backend = createCodexBackend({
      env: {
        ...process.env,
        CODEX_BIN: FAKE,
        FAKE_APP_SERVER_LOG: logFile,
        ...(threadStarts === undefined ? {} : { FAKE_APP_SERVER_THREAD_STARTS: String(threadStarts) }),
      },
      passEnv: ["FAKE_APP_SERVER_LOG", "FAKE_APP_SERVER_THREAD_STARTS"],
      // Counts each request's unsubscribe: a thread per request, not kept for its conversation.
      continuity: false,
      ...options,
    });
    /** How many `method` requests the fake received so far. */
    const count = (method: string) => {
      try {
        return readFileSync(logFile, "utf8")
          .split("\n")
          .filter((l) => l === method).length;
      } catch {
        return 0;
      }
    };
    const close = async () => {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    };
    return {
      backend,
      threadStarts: () => count("thread/start"),
      unsubscribes: () => count("thread/unsubscribe"),
      close,
    };
  };
  const say = (backend: CodexBackend, text: string) => turn(backend, { input: [{ type: "text", text }] });

  it("warmThreads 0: every turn starts its own thread and nothing is started ahead", async () => {
    const { backend, threadStarts, close } = fake({ warmThreads: 0 });
    try {
      for (const text of ["one", "two", "three"])
        expect(textOf(await say(backend, text))).toBe(`echo:${text}`);
      await new Promise((r) => setTimeout(r, 100));
      expect(threadStarts()).toBe(3);
      expect(backend.warmThreads()).toEqual({ ready: 0, starting: 0, handedOut: 0 });
    } finally {
      await close();
    }
  });

  it("a config seen once is never warmed: prompts that differ every time cost no extra thread", async () => {
    const { backend, threadStarts, close } = fake();
    try {
      for (const instructions of ["now is 10:00", "now is 10:01", "now is 10:02"])
        await turn(backend, { instructions });
      await new Promise((r) => setTimeout(r, 100));
      expect(threadStarts()).toBe(3);
      expect(backend.warmThreads()).toEqual({ ready: 0, starting: 0, handedOut: 0 });
    } finally {
      await close();
    }
  });

  it("keeps at most warmThreadConfigs configs warm (least recently used freed) and frees idle ones", async () => {
    const { backend, unsubscribes, close } = fake({ warmThreadConfigs: 2, warmThreadIdleMs: 200 });
    const twice = async (instructions: string) => {
      await turn(backend, { instructions });
      await turn(backend, { instructions });
      await settled(backend);
    };
    try {
      await twice("a");
      await twice("b");
      expect(backend.warmThreads().ready).toBe(2);
      await twice("c"); // c is the third warm config: a's warm thread goes (the first c takes none)
      expect(backend.warmThreads().ready).toBe(2);
      await vi.waitFor(() => expect(unsubscribes()).toBe(7)); // six turns' threads and a's warm one
      const handedOut = backend.warmThreads().handedOut;
      await turn(backend, { instructions: "a" }); // its own thread; its replacement pushes b's out
      expect(backend.warmThreads().handedOut).toBe(handedOut);
      await settled(backend, 2);
      await vi.waitFor(() => expect(unsubscribes()).toBe(9));
      // Unused for longer than warmThreadIdleMs: freed by the next sweep (at most a second apart).
      await vi.waitFor(() => expect(backend.warmThreads().ready).toBe(0), { timeout: 5_000 });
      await vi.waitFor(() => expect(unsubscribes()).toBe(11)); // c's and a's warm threads
    } finally {
      await close();
    }
  });

  it("with the pool empty a turn starts its own thread; from the second, one is ready for the next", async () => {
    const { backend, threadStarts, close } = fake();
    try {
      expect(textOf(await say(backend, "first"))).toBe("echo:first");
      expect(textOf(await say(backend, "second"))).toBe("echo:second");
      await settled(backend, 1);
      expect(threadStarts()).toBe(3);
      expect(textOf(await say(backend, "third"))).toBe("echo:third");
      expect(backend.warmThreads().handedOut).toBe(1);
    } finally {
      await close();
    }
  });

  it("warm threads are kept per caller: another caller's identical config neither takes nor warms them", async () => {
    const { backend, threadStarts, close } = fake();
    const as = (partition: string, text: string) =>
      turn(backend, { partition, input: [{ type: "text", text }] });
    try {
      await as("alice", "one");
      await as("alice", "two");
      await settled(backend, 1);
      // Bob sends exactly Alice's config twice: he gets no warm thread, and only his own second
      // turn warms one for him.
      expect(textOf(await as("bob", "three"))).toBe("echo:three");
      expect(backend.warmThreads().handedOut).toBe(0);
      expect(textOf(await as("bob", "four"))).toBe("echo:four");
      expect(backend.warmThreads().handedOut).toBe(0);
      await settled(backend, 2);
      expect(threadStarts()).toBe(6);
      expect(textOf(await as("alice", "five"))).toBe("echo:five");
      expect(backend.warmThreads().handedOut).toBe(1);
      expect(textOf(await as("bob", "six"))).toBe("echo:six");
      expect(backend.warmThreads().handedOut).toBe(2);
    } finally {
      await close();
    }
  });

  it("a warm thread whose start stalls fails its turn within the request timeout, and close() does not hang", async () => {
    const { backend, threadStarts, close } = fake({ requestTimeoutMs: 300 }, 2);
    try {
      expect(textOf(await say(backend, "first"))).toBe("echo:first");
      expect(textOf(await say(backend, "second"))).toBe("echo:second");
      await vi.waitFor(() => expect(threadStarts()).toBe(3));
      expect(backend.warmThreads()).toMatchObject({ ready: 0, starting: 1 });
      const failure = await say(backend, "third").catch((e: unknown) => e);
      expect(failure).toMatchObject({ kind: "timeout" });
    } finally {
      const t0 = performance.now();
      await close();
      expect(performance.now() - t0).toBeLessThan(5_000);
    }
  });

  it("after beginShutdown turns still get what is warm, but nothing more is started ahead of time", async () => {
    const { backend, threadStarts, close } = fake();
    try {
      expect(textOf(await say(backend, "first"))).toBe("echo:first");
      expect(textOf(await say(backend, "second"))).toBe("echo:second");
      await settled(backend, 1);
      backend.beginShutdown();
      expect(textOf(await say(backend, "third"))).toBe("echo:third");
      expect(textOf(await say(backend, "fourth"))).toBe("echo:fourth");
      await new Promise((r) => setTimeout(r, 100));
      expect(backend.warmThreads()).toEqual({ ready: 0, starting: 0, handedOut: 1 });
      expect(threadStarts()).toBe(4);
    } finally {
      await close();
    }
  });
});
