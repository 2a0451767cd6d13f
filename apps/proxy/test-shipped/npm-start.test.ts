import { readdirSync } from "node:fs";
import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CodexHome,
  makeCodexHome,
  type ScriptedModelProvider,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedGateway, spawnGateway } from "../test/support/spawn-gateway.js";
import { descendantsOf, processTable, serverEnv, stillRunningAfter } from "./support.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

describe.runIf(process.platform === "linux")("npm start, as a supervisor runs it", () => {
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let dataDir: string;
  let gateway: SpawnedGateway;
  /** Everything `npm start` started (kept: a failed stop leaves orphans that no longer descend from it). */
  let tree: number[] = [];

  beforeAll(async () => {
    provider = await startScriptedModelProvider({ text: "Hello through the custom provider." });
    home = await makeCodexHome(provider.url);
    // A custom provider whose key comes from the environment, as codex's docs describe it.
    await appendFile(join(home.path, "config.toml"), 'env_key = "MY_PROVIDER_KEY"\n');
    dataDir = await mkdtemp(join(tmpdir(), "npm-start-data-"));
    gateway = await spawnGateway(
      {
        ...serverEnv(),
        CODEX_HOME: home.path,
        MY_PROVIDER_KEY: "sk-custom-provider",
        PROXY_DATA_DIR: dataDir,
      },
      // Its own process group, like a service's main process: only the top pid gets the signal.
      { command: ["npm", "start", "--silent"], cwd: root, detached: true, inheritEnv: false },
    );
  }, 240_000);

  afterAll(async () => {
    const top = gateway?.child.pid;
    if (top !== undefined) {
      const live = processTable();
      for (const pid of [top, ...tree, ...descendantsOf(top)])
        if (live.has(pid)) process.kill(pid, "SIGKILL");
    }
    await provider?.close();
    await home?.cleanup();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("serves a chat turn through a custom codex provider whose env_key is only set, not passed", async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    expect(JSON.parse(body).choices[0].message.content).toBe("Hello through the custom provider.");
    expect(provider.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-custom-provider"]);
    expect(readdirSync(dataDir)).toContain("gateway.sqlite");
  });

  it("SIGTERM to npm's own process stops everything under it, codex included, and exits 0", async () => {
    const top = gateway.child.pid as number;
    tree = descendantsOf(top);
    const codexPids = gateway.lines
      .filter((l) => l.msg === "codex app-server ready")
      .map((l) => Number(l.pid));
    expect(codexPids.length).toBeGreaterThan(0);
    expect(tree).toEqual(expect.arrayContaining(codexPids));
    process.kill(top, "SIGTERM");
    expect(await gateway.exited).toBe(0);
    expect(gateway.lines.map((l) => l.msg)).toContain("stopped");
    expect(await stillRunningAfter(tree, 10_000)).toEqual([]);
  });

  it("a second npm start in the same clone skips the install and build and is healthy within 10 s", async () => {
    const started = Date.now();
    const again = await spawnGateway(
      { ...serverEnv(), CODEX_HOME: home.path, PROXY_DATA_DIR: dataDir },
      { command: ["npm", "start", "--silent"], cwd: root, detached: true, inheritEnv: false },
    );
    try {
      expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(10_000);
      // Nothing a newcomer cannot act on: no install-script box, no warning of the tools it runs.
      expect(again.output()).toContain("pnpm install skipped");
      expect(again.output()).not.toMatch(/\bwarn(ing)?\b|ignored build scripts|ERR_PNPM|deprecated/i);
      expect(again.lines.filter((l) => Number(l.level) >= 40)).toEqual([]);
    } finally {
      process.kill(again.child.pid as number, "SIGTERM");
      expect(await again.exited).toBe(0);
    }
  });
});
