/**
 * Cold start of one app-server, unsealed (the gateway's whole environment, default app-server
 * config, shell snapshot on) against sealed (allow-listed environment with an empty PATH, no
 * plugin sync, no shell snapshot): spawn → `initialize` answered, spawn → first turn completed,
 * and the CPU the app-server and its children used until 1.5 s after that turn (startup probes
 * run in the background). Linux only (reads /proc). Run:
 * `pnpm tsx --conditions=@proxy/source packages/adapter-codex-appserver/bench/cold-start.ts [runs]`
 */
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  resolveCodexCommand,
  sealedAppServerArgs,
  sealedEnvironment,
  sealedThreadParams,
  writeSealedCatalog,
} from "../src/index.js";
import { silentLogger } from "../src/logger.js";
import { makeCodexHome, reapedChildFaults, startScriptedModelProvider } from "../src/testing/index.js";
import { startAppServer } from "../src/transport/app-server-process.js";

const TICK_MS = 10; // USER_HZ 100
const cpuMs = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const f = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  // utime stime cutime cstime are fields 14-17; f[0] is field 3
  return ((f[11] ?? 0) + (f[12] ?? 0) + (f[13] ?? 0) + (f[14] ?? 0)) * TICK_MS;
};

const runs = Number(process.argv[2] ?? 5);
const provider = await startScriptedModelProvider(() => ({ text: "ok" }));
const home = await makeCodexHome(provider.url);
const dir = await mkdtemp(join(tmpdir(), "cold-start-"));
const emptyPath = join(dir, "empty-path");
await mkdir(emptyPath);
const cwd = join(dir, "cwd");
await mkdir(cwd);
const full: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home.path };
delete full.CODEX_BIN;
const command = resolveCodexCommand(undefined, full);
const catalog = await writeSealedCatalog({ command, env: sealedEnvironment(full, [], emptyPath), dir });
const params = sealedThreadParams(catalog, cwd);

const variants = {
  unsealed: {
    env: full,
    args: ["app-server"],
    config: { ...params.config, "features.shell_snapshot": true },
  },
  sealed: {
    env: sealedEnvironment(full, [], emptyPath),
    args: ["app-server", ...sealedAppServerArgs()],
    config: params.config,
  },
};

type Sample = { initializeMs: number; firstTurnMs: number; cpuMs: number; childFaults: number };
const results: Record<string, Sample[]> = { unsealed: [], sealed: [] };
for (let i = 0; i < runs; i++) {
  for (const [name, v] of Object.entries(variants)) {
    const t0 = performance.now();
    const proc = await startAppServer({
      command,
      args: v.args,
      env: v.env,
      logger: silentLogger,
      clientName: "cold_start_bench",
      clientVersion: "0",
      startTimeoutMs: 30_000,
    });
    const initializeMs = performance.now() - t0;
    const thread = await proc.connection.request<{ thread: { id: string } }>("thread/start", {
      ...params,
      config: v.config,
      model: "scripted-model",
    });
    const done = new Promise<void>((r) =>
      proc.subscribe(thread.thread.id, (m) => m === "turn/completed" && r()),
    );
    await proc.connection.request("turn/start", {
      threadId: thread.thread.id,
      input: [{ type: "text", text: "hi" }],
    });
    await done;
    const firstTurnMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 1500));
    const pid = proc.pid as number;
    results[name]?.push({
      initializeMs,
      firstTurnMs,
      cpuMs: await cpuMs(pid),
      childFaults: reapedChildFaults(pid),
    });
    await proc.close();
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const summary = Object.fromEntries(
  Object.entries(results).map(([name, samples]) => [
    name,
    {
      runs: samples.length,
      initializeMsMedian: Math.round(median(samples.map((s) => s.initializeMs))),
      firstTurnMsMedian: Math.round(median(samples.map((s) => s.firstTurnMs))),
      cpuMsMedian: Math.round(median(samples.map((s) => s.cpuMs))),
      childProcessesRan: samples.every((s) => s.childFaults > 0),
    },
  ]),
);
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
await provider.close();
await home.cleanup();
await rm(dir, { recursive: true, force: true });
