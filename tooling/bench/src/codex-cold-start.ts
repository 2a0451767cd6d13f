/**
 * Codex cold start, split: the built gateway as `npm start` runs it, from process
 * start to its first log line (Node boot, module load, config, store), to "codex app-server ready",
 * to HTTP listening, to `/readyz` answering 200; against the app-server alone (spawn to its
 * `initialize` response, the same sealed flags and environment) and Node alone (`node -e 0`).
 * Reps alternate the sides; figures are medians.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { sealedAppServerArgs, sealedEnvironment } from "@proxy/adapter-codex-appserver";
import { startDirectDriver } from "@proxy/adapter-codex-appserver/testing";
import { type BeforeBuild, beforeBin } from "./before.js";
import { cpuMsOf, rssOf } from "./proc.js";
import { median } from "./stats.js";

const GATEWAY_BIN = fileURLToPath(new URL("../../../apps/proxy/bin/codex-tool-gateway.mjs", import.meta.url));

/** Milliseconds from spawn; a stage the gateway never logged is NaN. */
export interface GatewayColdStart {
  readonly firstLogLine: number;
  readonly appServerReady: number;
  readonly listening: number;
  readonly ready: number;
  /** CPU time the gateway process used up to `/readyz` 200 (ms; its codex processes not counted). */
  readonly cpuMsToReady?: number;
  /** The gateway process's RSS (MiB) 1 s after `/readyz` answered 200: idle, codex's processes not counted. */
  readonly idleRssMiB?: number;
}

export interface ColdStartResult {
  readonly reps: number;
  readonly gateway: GatewayColdStart;
  /** The app-server alone: spawn to its `initialize` response. */
  readonly appServerAlone: number;
  /** The earlier build's bin (BENCH_BEFORE_DIR), in the same rotation, when the run had one. */
  readonly before?: GatewayColdStart & { readonly commit: string };
  /** `node -e 0`: spawn to exit (what any Node process pays before our code runs). */
  readonly nodeAlone: number;
  readonly samples: {
    readonly gateway: GatewayColdStart[];
    readonly before?: GatewayColdStart[];
    readonly appServerAlone: number[];
    readonly nodeAlone: number[];
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Log lines are read as they arrive (pino JSON on stdout); the clock is this process's. */
const gatewayOnce = async (env: NodeJS.ProcessEnv, bin = GATEWAY_BIN): Promise<GatewayColdStart> => {
  const dataDir = await mkdtemp(join(tmpdir(), "bench-cold-"));
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin], {
    env: { ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", PROXY_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const at = { firstLogLine: Number.NaN, appServerReady: Number.NaN, listening: Number.NaN };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buffered = "";
      const timer = setTimeout(
        () => reject(new Error("gateway cold start: not listening after 30 s")),
        30_000,
      );
      child.stdout.on("data", (b: Buffer) => {
        const now = performance.now() - t0;
        buffered += b.toString();
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) {
          if (Number.isNaN(at.firstLogLine)) at.firstLogLine = now;
          if (line.includes('"codex app-server ready"') && Number.isNaN(at.appServerReady))
            at.appServerReady = now;
          if (line.includes('"gateway listening"')) {
            at.listening = now;
            clearTimeout(timer);
            resolve((JSON.parse(line) as { url: string }).url);
          }
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`gateway cold start: exited ${code} before listening`));
      });
    });
    let ready = Number.NaN;
    while (Number.isNaN(ready) && performance.now() - t0 < 30_000) {
      const ok = await fetch(`${url}/readyz`).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status === 200;
        },
        () => false,
      );
      if (ok) ready = performance.now() - t0;
      else await sleep(5);
    }
    const cpuMsToReady = await cpuMsOf(child.pid);
    await sleep(1000);
    return { ...at, ready, cpuMsToReady, idleRssMiB: (await rssOf(child.pid as number)) / 2 ** 20 };
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  }
};

const appServerOnce = async (command: string, env: NodeJS.ProcessEnv, emptyPath: string) => {
  const t0 = performance.now();
  const driver = await startDirectDriver(
    command,
    sealedEnvironment(env, [], emptyPath),
    sealedAppServerArgs(),
  );
  const ms = performance.now() - t0;
  await driver.close();
  return ms;
};

const nodeOnce = () =>
  new Promise<number>((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - t0));
  });

/** `reps` rounds of gateway (and the earlier build's), app-server alone, Node alone (the order rotates), 200 ms apart. */
export const measureColdStart = async (o: {
  readonly command: string;
  readonly env: NodeJS.ProcessEnv;
  /** An empty directory for the app-server's PATH (as the gateway seals it). */
  readonly emptyPath: string;
  readonly reps: number;
  readonly before?: BeforeBuild;
}): Promise<ColdStartResult> => {
  const samples = {
    gateway: [] as GatewayColdStart[],
    before: [] as GatewayColdStart[],
    appServerAlone: [] as number[],
    nodeAlone: [] as number[],
  };
  const jobs = [
    async () => samples.gateway.push(await gatewayOnce(o.env)),
    async () => samples.appServerAlone.push(await appServerOnce(o.command, o.env, o.emptyPath)),
    async () => samples.nodeAlone.push(await nodeOnce()),
  ];
  const { before } = o;
  if (before) jobs.push(async () => samples.before.push(await gatewayOnce(o.env, beforeBin(before))));
  for (let rep = 0; rep < o.reps; rep++)
    for (let i = 0; i < jobs.length; i++) {
      await sleep(200);
      await (jobs[(i + rep) % jobs.length] as () => Promise<unknown>)();
    }
  const stages = (of: GatewayColdStart[]): GatewayColdStart => {
    const stage = (k: keyof GatewayColdStart) => median(of.map((g) => g[k] ?? Number.NaN));
    return {
      firstLogLine: stage("firstLogLine"),
      appServerReady: stage("appServerReady"),
      listening: stage("listening"),
      ready: stage("ready"),
      cpuMsToReady: stage("cpuMsToReady"),
      idleRssMiB: stage("idleRssMiB"),
    };
  };
  return {
    reps: o.reps,
    gateway: stages(samples.gateway),
    ...(before ? { before: { ...stages(samples.before), commit: before.commit } } : {}),
    appServerAlone: median(samples.appServerAlone),
    nodeAlone: median(samples.nodeAlone),
    samples,
  };
};
