import { readdirSync, readFileSync } from "node:fs";
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

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** pid → parent pid of every live process (zombies count as gone). */
const processTable = (): Map<number, number> => {
  const table = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z") table.set(Number(entry), Number(ppid));
    } catch {
      // exited while we looked
    }
  }
  return table;
};

const descendantsOf = (pid: number): number[] => {
  const table = processTable();
  const out: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    const children = [...table].filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    out.push(...children);
    frontier = children;
  }
  return out;
};

describe.runIf(process.platform === "linux")("npm start, as a supervisor runs it", () => {
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let dataDir: string;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    provider = await startScriptedModelProvider({ text: "Hello through the custom provider." });
    home = await makeCodexHome(provider.url);
    // A custom provider whose key comes from the environment, as codex's docs describe it.
    await appendFile(join(home.path, "config.toml"), 'env_key = "MY_PROVIDER_KEY"\n');
    dataDir = await mkdtemp(join(tmpdir(), "npm-start-data-"));
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !/^(npm_|PNPM_|NODE_OPTIONS$|VITEST|PROXY_)/i.test(name),
      ),
    ) as Record<string, string>;
    gateway = await spawnGateway(
      { ...env, CODEX_HOME: home.path, MY_PROVIDER_KEY: "sk-custom-provider", PROXY_DATA_DIR: dataDir },
      // Its own process group, like a service's main process: only the top pid gets the signal.
      { command: ["npm", "start", "--silent"], cwd: root, detached: true },
    );
  }, 240_000);

  afterAll(async () => {
    if (gateway?.child.pid && gateway.child.exitCode === null) {
      for (const pid of descendantsOf(gateway.child.pid)) process.kill(pid, "SIGKILL");
      process.kill(gateway.child.pid, "SIGKILL");
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
    const tree = descendantsOf(top);
    const codexPids = gateway.lines
      .filter((l) => l.msg === "codex app-server ready")
      .map((l) => Number(l.pid));
    expect(codexPids.length).toBeGreaterThan(0);
    expect(tree).toEqual(expect.arrayContaining(codexPids));
    process.kill(top, "SIGTERM");
    expect(await gateway.exited).toBe(0);
    expect(gateway.lines.map((l) => l.msg)).toContain("stopped");
    const deadline = Date.now() + 10_000;
    const alive = () => tree.filter((pid) => processTable().has(pid));
    while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toEqual([]);
  });
});
