/**
 * Turn benchmark: the adapter vs a bare JSON-RPC driver on the same codex binary, config and
 * scripted provider. Run: `pnpm tsx --conditions=@proxy/source packages/adapter-codex-appserver/bench/turn-bench.ts [--quick]`
 * (the condition resolves workspace packages to src/; without it, build first). Prints JSON.
 */
import { spawn as nodeSpawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import {
  createCodexBackend,
  resolveCodexCommand,
  sealedThreadParams,
  writeSealedCatalog,
} from "../src/index.js";
import { makeCodexHome, startDirectDriver, startScriptedModelProvider } from "../src/testing/index.js";

export interface TurnBenchOptions {
  /** Sequential turns per side in the alternating latency comparison. */
  readonly latencyTurns?: number;
  /** Turns per concurrency level in the throughput runs. */
  readonly throughputTurns?: number;
  readonly concurrency?: ReadonlyArray<number>;
  /** Total turns after which the app-server's RSS is sampled. */
  readonly rssAfterTurns?: ReadonlyArray<number>;
  readonly log?: (line: string) => void;
}

const CHUNKS = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "it."];
const median = (xs: number[]) => quantile(xs, 0.5);
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const round = (x: number, digits = 1) => Number(x.toFixed(digits));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident set size of a Linux process in MiB (null elsewhere). */
const rssMiB = async (pid: number | undefined): Promise<number | null> => {
  if (pid === undefined) return null;
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb ? round(Number(kb) / 1024) : null;
};

/** CPU time (user + system) a Linux process has used, in ms; robust to a noisy shared machine. */
const cpuMs = async (pid: number | undefined): Promise<number> => {
  if (pid === undefined) return Number.NaN;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ=100)
};

export const runTurnBench = async (options: TurnBenchOptions = {}) => {
  const log = options.log ?? (() => {});
  const provider = await startScriptedModelProvider(() => ({
    chunks: CHUNKS,
    usage: { inputTokens: 50, outputTokens: 7 },
  }));
  const home = await makeCodexHome(provider.url);
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home.path };
  const command = resolveCodexCommand(undefined, env);
  const scratch = await mkdtemp(join(tmpdir(), "turn-bench-"));
  const pids: number[] = [];
  const request = (text: string) => ({
    model: "scripted-model",
    instructions: "Bench.",
    history: [],
    input: [{ type: "text" as const, text }],
  });

  let t0 = performance.now();
  const backend = createCodexBackend({
    env,
    spawn: (c, a, o) => {
      const child = nodeSpawn(c, [...a], o);
      if (child.pid !== undefined) pids.push(child.pid);
      return child;
    },
  });
  await backend.warmup();
  const adapterColdStartMs = performance.now() - t0;
  t0 = performance.now();
  const direct = await startDirectDriver(command, env);
  const directColdStartMs = performance.now() - t0;
  const threadParams = {
    ...sealedThreadParams(await writeSealedCatalog({ command, env, dir: scratch }), scratch),
    model: "scripted-model",
    baseInstructions: "Bench.",
  };
  let adapterTurns = 0;
  const adapterTurn = async (text: string) => {
    let answer = "";
    for await (const e of backend.stream(request(text), { signal: new AbortController().signal })) {
      if (e.type === "text-delta") answer += e.delta;
      if (e.type === "error") throw e.error;
    }
    adapterTurns++;
    if (answer !== CHUNKS.join("")) throw new Error(`unexpected answer ${answer}`);
  };

  try {
    log("latency: alternating adapter / direct turns");
    const adapterMs: number[] = [];
    const directMs: number[] = [];
    const latencyTurns = options.latencyTurns ?? 50;
    for (let i = -5; i < latencyTurns; i++) {
      const timed = async (fn: () => Promise<unknown>, into: number[]) => {
        const start = performance.now();
        await fn();
        if (i >= 0) into.push(performance.now() - start);
      };
      const a = () => timed(() => adapterTurn(`latency ${i}`), adapterMs);
      const d = () => timed(() => direct.turn(threadParams, `latency ${i}`), directMs);
      if (i % 2 === 0) await a().then(d);
      else await d().then(a);
    }

    // RSS: the first sample right after the latency phase, the rest after the throughput runs.
    const rss: Array<{ afterTurns: number; appServerRssMiB: number | null }> = [];
    const sampleRss = async (target: number) => {
      log(`rss: running up to ${target} turns`);
      while (adapterTurns < target) {
        const batch = Math.min(16, target - adapterTurns);
        await Promise.all(Array.from({ length: batch }, (_, k) => adapterTurn(`rss ${adapterTurns + k}`)));
      }
      await sleep(6_000); // let thread_unload_delay_secs=5 free the finished threads
      rss.push({ afterTurns: adapterTurns, appServerRssMiB: await rssMiB(pids.at(-1)) });
    };
    const [firstRss, ...laterRss] = options.rssAfterTurns ?? [100, 2_000];
    if (firstRss !== undefined) await sampleRss(firstRss);

    const throughput: Array<{
      concurrency: number;
      turnsPerSecond: number;
      medianTurnMs: number;
      appServerCpuMsPerTurn: number;
    }> = [];
    for (const c of options.concurrency ?? [1, 4, 16]) {
      log(`throughput: concurrency ${c}`);
      const total = options.throughputTurns ?? 64;
      let next = 0;
      const perTurn: number[] = [];
      const cpuBefore = await cpuMs(pids.at(-1));
      const start = performance.now();
      await Promise.all(
        Array.from({ length: c }, async () => {
          while (next < total) {
            next++;
            const s = performance.now();
            await adapterTurn(`throughput ${next}`);
            perTurn.push(performance.now() - s);
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      const cpuPerTurn = ((await cpuMs(pids.at(-1))) - cpuBefore) / total;
      throughput.push({
        concurrency: c,
        turnsPerSecond: round(total / seconds, 2),
        medianTurnMs: round(median(perTurn)),
        appServerCpuMsPerTurn: round(cpuPerTurn),
      });
    }

    for (const target of laterRss) await sampleRss(target);

    const adapterMedian = median(adapterMs);
    const directMedian = median(directMs);
    return {
      coldStartMs: {
        adapterWarmup: round(adapterColdStartMs),
        directSpawnToInitialize: round(directColdStartMs),
      },
      latencyMs: {
        turns: latencyTurns,
        adapter: { median: round(adapterMedian), p90: round(quantile(adapterMs, 0.9)) },
        direct: { median: round(directMedian), p90: round(quantile(directMs, 0.9)) },
        ratioOfMedians: round(adapterMedian / directMedian, 3),
      },
      throughput,
      rss,
      restarts: backend.readiness().restarts,
    };
  } finally {
    await direct.close();
    await backend.close();
    await provider.close();
    await home.cleanup();
    await rm(scratch, { recursive: true, force: true });
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick");
  const result = await runTurnBench({
    log: (line) => process.stderr.write(`${line}\n`),
    ...(quick ? { latencyTurns: 10, throughputTurns: 16, rssAfterTurns: [100] } : {}),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
