import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CodexHome,
  makeCodexHome,
  type ScriptedModelProvider,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { startScriptedUpstream } from "@proxy/adapter-openai-compatible/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_BIN, type SpawnedGateway, spawnGateway } from "../test/support/spawn-gateway.js";
import { serverEnv } from "./support.js";

/** The goal in docs/benchmarks.md: the built gateway, started and idle, in at most this much RSS. */
const IDLE_RSS_MIB = 100;

const rssMiB = (pid: number): number => {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
};

/** The gateway process's RSS one second after it listens (codex's processes are not counted). */
const idleRss = async (gateway: SpawnedGateway): Promise<number> => {
  await new Promise((r) => setTimeout(r, 1000));
  return rssMiB(gateway.child.pid as number);
};

const countTokens = async (gateway: SpawnedGateway, text: string) => {
  const r = await fetch(`${gateway.url}/v1beta/models/gemini-2.5-flash:countTokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text }] }] }),
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { totalTokens: number }).totalTokens;
};

describe.runIf(process.platform === "linux")("the built gateway's idle memory", () => {
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let dataDir: string;
  let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
  const started: SpawnedGateway[] = [];

  const start = async (env: Record<string, string>) => {
    const gateway = await spawnGateway(
      { ...serverEnv(), CODEX_HOME: home.path, PROXY_DATA_DIR: dataDir, ...env },
      { command: [process.execPath, BUILT_BIN], inheritEnv: false },
    );
    started.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    provider = await startScriptedModelProvider({ text: "Hello." });
    home = await makeCodexHome(provider.url);
    upstream = await startScriptedUpstream(() => ({ text: "Hello." }));
    dataDir = await mkdtemp(join(tmpdir(), "idle-memory-"));
  });

  afterAll(async () => {
    for (const gateway of started) {
      if (gateway.child.exitCode === null) gateway.child.kill("SIGTERM");
      await gateway.exited;
    }
    await provider?.close();
    await upstream?.close();
    await home?.cleanup();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("by default (codex, the embedded SQLite store) stays within the goal; the tokenizer loads on the first count", async () => {
    const gateway = await start({});
    const idle = await idleRss(gateway);
    expect(idle).toBeLessThanOrEqual(IDLE_RSS_MIB);
    // The first count loads o200k_base (tens of MiB): it was not loaded at start.
    expect(await countTokens(gateway, "hello world")).toBe(2);
    expect(rssMiB(gateway.child.pid as number) - idle).toBeGreaterThan(10);
    expect(await countTokens(gateway, "hello world, <tool_call>")).toBe(7);
  });

  it("with OpenAI-compatible routes (the benchmark's peer setup) stays within the goal", async () => {
    const gateway = await start({
      PROXY_MODELS: JSON.stringify([{ id: "m", backend: "openai-compatible", baseUrl: upstream.url }]),
    });
    expect(await idleRss(gateway)).toBeLessThanOrEqual(IDLE_RSS_MIB);
  });
});
