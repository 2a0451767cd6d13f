import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  resolveCodexCommand,
  sealedAppServerArgs,
  sealedEnvironment,
  sealedThreadParams,
  writeSealedCatalog,
} from "@proxy/adapter-codex-appserver";
import {
  makeCodexHome,
  startDirectDriver,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { startServerChild } from "./child/protocol.js";
import { measureColdStart } from "./codex-cold-start.js";
import { timedPost } from "./http-client.js";
import { descendantsRss, rssOf } from "./proc.js";
import { median, quantile, ratio } from "./stats.js";

export interface CodexOptions {
  readonly latencyTurns: number;
  readonly throughputTurns: number;
  readonly concurrency: ReadonlyArray<number>;
  /** Gateway HTTP requests after which gateway and app-server RSS are sampled (e.g. 100, 2000). */
  readonly rssAfter: ReadonlyArray<number>;
  /** Concurrency used to reach the RSS sample points. */
  readonly fillConcurrency: number;
  /** performance.now() after which filling stops early (the run's time budget); the sample says how far it got. */
  readonly fillDeadline: number;
  /** Rounds of the split cold start (built gateway, app-server alone, Node alone); 0 or absent skips it. */
  readonly coldStartReps?: number;
  readonly log: (line: string) => void;
}

const CHUNKS = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "it."];
const ANSWER = CHUNKS.join("");
const INSTRUCTIONS = "You are a helpful assistant.";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `total` jobs with `concurrency` workers (none started after `deadline`); per-job ms and turns/s. */
const pool = async (
  total: number,
  concurrency: number,
  job: (i: number) => Promise<unknown>,
  deadline = Number.POSITIVE_INFINITY,
) => {
  let next = 0;
  const perTurn: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total && performance.now() < deadline) {
        const i = next++;
        const s = performance.now();
        await job(i);
        perTurn.push(performance.now() - s);
      }
    }),
  );
  return { turns: perTurn.length, seconds: (performance.now() - start) / 1000, perTurn };
};

type PoolRun = Awaited<ReturnType<typeof pool>>;

/**
 * The gateway over codex against a bare JSON-RPC driver: both on the pinned codex binary, one
 * scripted Responses provider and one CODEX_HOME. The gateway runs in its own process (with its
 * app-server below it); the driver and its app-server are driven from this one.
 */
export const runCodexGateway = async (o: CodexOptions) => {
  const provider = await startScriptedModelProvider(() => ({ chunks: CHUNKS }));
  const home = await makeCodexHome(provider.url);
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home.path };
  const scratch = await mkdtemp(join(tmpdir(), "bench-codex-"));
  const command = resolveCodexCommand(undefined, env);
  // Like for like: the driver's app-server gets the gateway's sealed flags and environment.
  await mkdir(join(scratch, "empty-path"));
  const reps = o.coldStartReps ?? 0;
  if (reps > 0) o.log(`codex: cold start, ${reps} rounds`);
  const coldStart =
    reps > 0
      ? await measureColdStart({ command, env, emptyPath: join(scratch, "empty-path"), reps }).catch(
          async (e: unknown) => {
            await provider.close();
            await home.cleanup();
            await rm(scratch, { recursive: true, force: true });
            throw e;
          },
        )
      : undefined;
  let t = performance.now();
  const gateway = await startServerChild("gateway-codex", { env });
  const gatewayColdStartMs = performance.now() - t;
  t = performance.now();
  const direct = await startDirectDriver(
    command,
    sealedEnvironment(env, [], join(scratch, "empty-path")),
    sealedAppServerArgs(),
  );
  const directColdStartMs = performance.now() - t;
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  let gatewayRequests = 0;
  try {
    const threadParams = {
      ...sealedThreadParams(await writeSealedCatalog({ command, env, dir: scratch }), scratch),
      model: "scripted-model",
      baseInstructions: INSTRUCTIONS,
    };
    /** Resolves with the time to the first text delta (ms). */
    const viaGateway = async (text: string) => {
      const body = {
        model: "scripted-model",
        stream: true,
        messages: [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: text },
        ],
      };
      const r = await timedPost(`${gateway.url}/v1/chat/completions`, body, agent);
      gatewayRequests++;
      const answer = r.deltas.map((d) => d.text).join("");
      if (r.status !== 200 || answer !== ANSWER)
        throw new Error(`codex via gateway: ${r.status} "${answer}"`);
      return r.firstTextMs;
    };
    const viaDirect = async (text: string) => {
      const t = await direct.timedTurn(threadParams, text);
      if (t.answer !== ANSWER) throw new Error(`codex direct: "${t.answer}"`);
      return t.firstDeltaMs;
    };
    const sampleRss = async (target: number) => {
      await sleep(6_000); // thread_unload_delay_secs=5: let finished threads be freed first
      return {
        target,
        afterRequests: gatewayRequests,
        gatewayRssMiB: (await rssOf(gateway.pid)) / 2 ** 20,
        appServerRssMiB: (await descendantsRss(gateway.pid)) / 2 ** 20,
      };
    };
    const fillTo = async (target: number) => {
      if (gatewayRequests >= target) return;
      o.log(`codex: gateway requests up to ${target}`);
      await pool(target - gatewayRequests, o.fillConcurrency, (i) => viaGateway(`fill ${i}`), o.fillDeadline);
      if (gatewayRequests < target) o.log(`codex: time budget reached at ${gatewayRequests} requests`);
    };

    o.log("codex: warm-up");
    await pool(10, 1, (i) => viaGateway(`warm ${i}`));
    await pool(5, 1, (i) => viaDirect(`warm ${i}`));
    const rss = [];
    const [firstRss, ...laterRss] = o.rssAfter;
    if (firstRss !== undefined) {
      await fillTo(firstRss);
      rss.push(await sampleRss(firstRss));
    }

    o.log("codex: latency, alternating gateway / direct");
    const latency = { gateway: [] as number[], direct: [] as number[] };
    const ttft = { gateway: [] as number[], direct: [] as number[] };
    for (let i = 0; i < o.latencyTurns; i++) {
      const timed = async (side: "gateway" | "direct") => {
        // Turns 20 ms apart: the previous turn's background work (an unsubscribe, the gateway
        // starting its next warm thread) is not charged to the next one.
        await sleep(20);
        const s = performance.now();
        const first = await (side === "gateway" ? viaGateway(`latency ${i}`) : viaDirect(`latency ${i}`));
        latency[side].push(performance.now() - s);
        ttft[side].push(first);
      };
      for (const side of i % 2 === 0 ? (["gateway", "direct"] as const) : (["direct", "gateway"] as const))
        await timed(side);
    }

    // A B B A halves per level, so a change in machine load hits both sides alike.
    const throughput = [];
    for (const c of o.concurrency) {
      o.log(`codex: throughput at concurrency ${c}`);
      const half = Math.max(c, Math.ceil(o.throughputTurns / 2));
      const g1 = await pool(half, c, (i) => viaGateway(`tp ${c} a${i}`));
      const d1 = await pool(half, c, (i) => viaDirect(`tp ${c} a${i}`));
      const d2 = await pool(half, c, (i) => viaDirect(`tp ${c} b${i}`));
      const g2 = await pool(half, c, (i) => viaGateway(`tp ${c} b${i}`));
      const merge = (a: PoolRun, b: PoolRun) => ({
        turnsPerSecond: (a.turns + b.turns) / (a.seconds + b.seconds),
        medianTurnMs: median([...a.perTurn, ...b.perTurn]),
      });
      const g = merge(g1, g2);
      const d = merge(d1, d2);
      throughput.push({
        concurrency: c,
        gateway: g,
        direct: d,
        ratio: ratio(g.turnsPerSecond, d.turnsPerSecond),
      });
    }

    for (const target of laterRss) {
      await fillTo(target);
      rss.push(await sampleRss(target));
    }
    const first = rss[0];
    const last = rss.at(-1);
    return {
      coldStartMs: { gateway: gatewayColdStartMs, direct: directColdStartMs },
      /** The built gateway's cold start split by stage, against the app-server alone (medians). */
      coldStart,
      latencyMs: {
        turns: o.latencyTurns,
        gateway: { p50: median(latency.gateway), p90: quantile(latency.gateway, 0.9) },
        direct: { p50: median(latency.direct), p90: quantile(latency.direct, 0.9) },
        ratioOfMedians: ratio(median(latency.gateway), median(latency.direct)),
      },
      /** Request sent → first text delta: through the gateway's HTTP SSE, or as the driver's first `item/agentMessage/delta`. */
      ttftMs: {
        turns: o.latencyTurns,
        gateway: { p50: median(ttft.gateway), p90: quantile(ttft.gateway, 0.9) },
        direct: { p50: median(ttft.direct), p90: quantile(ttft.direct, 0.9) },
        ratioOfMedians: ratio(median(ttft.gateway), median(ttft.direct)),
      },
      throughput,
      rss,
      rssGrowth:
        first && last
          ? {
              gateway: ratio(last.gatewayRssMiB, first.gatewayRssMiB),
              appServer: ratio(last.appServerRssMiB, first.appServerRssMiB),
            }
          : undefined,
    };
  } finally {
    agent.destroy();
    await direct.close();
    await gateway.close();
    await provider.close();
    await home.cleanup();
    await rm(scratch, { recursive: true, force: true });
  }
};

/** Built (dist/package-bench/, bundled by tsup) when this module runs built; the source under tsx. */
const TURN_BENCH = fileURLToPath(
  import.meta.url.endsWith(".js")
    ? new URL("./package-bench/turn-bench.js", import.meta.url)
    : new URL("../../../packages/adapter-codex-appserver/bench/turn-bench.ts", import.meta.url),
);

/** The adapter package's own bench (adapter in-process vs direct driver), when it exists. */
export const runAdapterTurnBench = async (options: Record<string, unknown>): Promise<unknown> => {
  if (!existsSync(TURN_BENCH))
    return { missing: "packages/adapter-codex-appserver/bench/turn-bench.ts not found" };
  const mod = (await import(pathToFileURL(TURN_BENCH).href)) as {
    runTurnBench?: (o: Record<string, unknown>) => Promise<unknown>;
  };
  if (typeof mod.runTurnBench !== "function") return { missing: "turn-bench.ts exports no runTurnBench()" };
  return mod.runTurnBench(options);
};
