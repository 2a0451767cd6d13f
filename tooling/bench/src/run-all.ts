/**
 * `pnpm bench`: every benchmark in one run, then results/latest.json, results/runs/<time>.json,
 * the SVG plots under results/, and docs/benchmarks.md. Knobs: BENCH_* (see results.ts);
 * BENCH_ONLY=peer,agent-session,http,ttfb,profile,memory,parser,library-peer,codex-adapter,codex-gateway runs a subset.
 * BENCH_BEFORE_DIR=<an earlier checkout, built>: the peer and http sections run that build beside this one.
 */
import { fork, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { extname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { AgentSessionResult } from "./agent-session/agent-report.js";
import { beforeFromEnv } from "./before.js";
import { type ServerChild, startServerChild } from "./child/protocol.js";
import { runAdapterTurnBench, runCodexGateway } from "./codex.js";
import { runHttpOverhead } from "./http-overhead.js";
import { libraryPeerConfigFromEnv, runLibraryPeerBench } from "./library-peer/library-peer-bench.js";
import { parserBars } from "./parser-result.js";
import { peerConfigFromEnv, runPeerBench } from "./peer/peer-bench.js";
import { latencyPlot, parserPlot, rpsPlot } from "./plots.js";
import { profileScenario } from "./profile.js";
import { renderReport } from "./report.js";
import { type BenchResults, configFromEnv } from "./results.js";
import { HTTP_SCENARIOS } from "./scenarios.js";
import { runStreamMemory } from "./stream-memory.js";
import { runHoldback, runTtfb } from "./ttfb.js";

const RESULTS = fileURLToPath(new URL("../results/", import.meta.url));
const DOC = fileURLToPath(new URL("../../../docs/benchmarks.md", import.meta.url));
const PARSER_MAIN = fileURLToPath(new URL(`./child/parser-main${extname(import.meta.url)}`, import.meta.url));

/** Workloads profiled at 64 connections: the cause of any missed goal is read from these. */
const PROFILED = ["chat-stream-text", "chat-stream-tools", "chat-json-text", "responses-stream-text"];

const log = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Runs one section; a failure is recorded (and shown in the document), the others still run. */
const section = async (results: BenchResults, name: string, fn: () => Promise<void>) => {
  const only = process.env.BENCH_ONLY?.split(",");
  if (only && !only.includes(name)) return;
  const t = performance.now();
  log(`— ${name}`);
  try {
    await fn();
  } catch (e) {
    results.failures[name] = e instanceof Error ? e.message : String(e);
    log(`${name} failed: ${results.failures[name]}`);
  }
  log(`— ${name} done in ${((performance.now() - t) / 1000).toFixed(0)} s`);
};

const runParserInChild = () =>
  new Promise<unknown>((resolve, reject) => {
    const child = fork(PARSER_MAIN, [], { execArgv: [...process.execArgv, "--expose-gc"] });
    child.once("message", (m) => resolve((m as { result: unknown }).result));
    child.once("exit", (code) => (code === 0 ? undefined : reject(new Error(`parser bench exited ${code}`))));
  });

const AGENT_SESSION_MAIN = fileURLToPath(
  new URL(`./agent-session/main${extname(import.meta.url)}`, import.meta.url),
);

const AGENT_REPLICAS_MAIN = fileURLToPath(
  new URL(`./agent-session/replicas-main${extname(import.meta.url)}`, import.meta.url),
);

/** The agent session runs as its own process (it starts a gateway and codex itself); its stdout is JSON. */
const runAgentSession = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  main = AGENT_SESSION_MAIN,
) =>
  new Promise<AgentSessionResult["on"]>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, main, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
    });
    child.once("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as AgentSessionResult["on"])
        : reject(new Error(`agent session exited ${code}`)),
    );
  });

const main = async () => {
  const started = performance.now();
  const config = configFromEnv(process.env);
  const before = beforeFromEnv(process.env);
  if (before) log(`before: ${before.dir} at ${before.commit}`);
  const results: BenchResults = {
    version: 1,
    startedAt: new Date().toISOString(),
    wallSeconds: 0,
    command: "pnpm bench",
    config,
    ...(before ? { before } : {}),
    machine: {
      cpuModel: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
      memoryGiB: totalmem() / 2 ** 30,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverageAtStart: loadavg(),
    },
    failures: {},
  };

  const servers: ServerChild[] = [];
  const server = async (...args: Parameters<typeof startServerChild>) => {
    const s = await startServerChild(...args);
    servers.push(s);
    return s;
  };
  try {
    await section(results, "peer", async () => {
      const peerConfig = peerConfigFromEnv(process.env);
      const workDir = await mkdtemp(join(tmpdir(), "bench-peer-"));
      results.peer = { ...(await runPeerBench(peerConfig, workDir, log, before)), config: peerConfig };
    });
    const [baseline, gateway] = await Promise.all([server("baseline"), server("gateway")]);
    await section(results, "http", async () => {
      const earlier = before
        ? await server("gateway-before", { env: { ...process.env, BENCH_BEFORE_DIR: before.dir } })
        : undefined;
      try {
        results.http = await runHttpOverhead({
          baseline,
          gateway,
          before: earlier,
          scenarios: HTTP_SCENARIOS,
          connections: config.connections,
          seconds: config.seconds,
          warmupSeconds: config.warmupSeconds,
          reps: config.reps,
          log,
        });
      } finally {
        await earlier?.close();
      }
    });
    await section(results, "ttfb", async () => {
      const streaming = HTTP_SCENARIOS.filter((s) => s.stream && s.id.endsWith("text"));
      results.ttfb = [];
      for (const s of streaming) results.ttfb.push(await runTtfb(baseline, gateway, s, config.ttfbRequests));
      results.holdback = [
        await runHoldback(gateway, "bench-slow"),
        await runHoldback(gateway, "bench-slow-near-miss"),
      ];
    });
    await section(results, "profile", async () => {
      results.profiles = [];
      for (const id of PROFILED) {
        const scenario = HTTP_SCENARIOS.find((s) => s.id === id);
        if (scenario)
          results.profiles.push(
            await profileScenario(baseline, gateway, scenario, 64, Math.max(1, config.seconds)),
          );
      }
    });
    await Promise.all([baseline.close(), gateway.close()]);

    await section(results, "memory", async () => {
      const fresh = await server("gateway");
      results.streamMemory = await runStreamMemory(fresh, config.idleStreams);
      await fresh.close();
    });
    await section(results, "parser", async () => {
      results.parser = await runParserInChild();
    });
    await section(results, "library-peer", async () => {
      results.libraryPeer = await runLibraryPeerBench(libraryPeerConfigFromEnv(process.env), log);
    });
    if (config.codex) {
      await section(results, "agent-session", async () => {
        const turns = process.env.BENCH_AGENT_TURNS ?? (process.env.BENCH_QUICK === "1" ? "4" : "30");
        results.agentSession = {
          on: await runAgentSession(["--turns", turns], {}),
          off: await runAgentSession(["--turns", turns, "--surfaces", "chat", "--modes", "native"], {
            PROXY_CODEX_CONTINUITY: "false",
          }),
          // The edit-heavy session: every fifth turn regenerated, edits kept and not.
          edits: {
            on: await runAgentSession(["--turns", turns, "--regenerate-every", "5"], {
              PROXY_CODEX_KEEP_EDITS: "true",
            }),
            off: await runAgentSession(["--turns", turns, "--regenerate-every", "5"], {
              PROXY_CODEX_KEEP_EDITS: "false",
            }),
          },
          replicas: await runAgentSession(["--turns", turns], {}, AGENT_REPLICAS_MAIN),
        };
      });
      await section(results, "codex-adapter", async () => {
        results.codexAdapter = await runAdapterTurnBench({
          latencyTurns: config.codexLatencyTurns,
          throughputTurns: config.codexThroughputTurns,
          rssAfterTurns: [config.codexRssAfter[0] ?? 100],
          log: (line: string) => log(`turn-bench: ${line}`),
        });
      });
      await section(results, "codex-gateway", async () => {
        results.codexGateway = await runCodexGateway({
          latencyTurns: config.codexLatencyTurns,
          throughputTurns: config.codexThroughputTurns,
          concurrency: [1, 4, 16],
          rssAfter: config.codexRssAfter,
          fillConcurrency: config.codexFillConcurrency,
          coldStartReps: config.codexColdStartReps ?? 3,
          // Leave time for the last RSS sample, closing the servers and writing the report.
          fillDeadline: started + (config.budgetSeconds - 25) * 1000,
          log,
        });
      });
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }

  results.wallSeconds = (performance.now() - started) / 1000;
  results.machine.loadAverageAtEnd = loadavg();
  await writeOutputs(results, true);
  log(
    `done in ${(results.wallSeconds / 60).toFixed(1)} min: docs/benchmarks.md, tooling/bench/results/latest.json`,
  );
};

/** Plots, JSON (latest, and one per run when `archive`), and the document. */
const writeOutputs = async (results: BenchResults, archive: boolean) => {
  const plots = {
    latency: "plots/latency-vs-connections.svg",
    rps: "plots/rps-vs-connections.svg",
    parser: "plots/parser-mbps.svg",
  };
  await mkdir(`${RESULTS}plots`, { recursive: true });
  await mkdir(`${RESULTS}runs`, { recursive: true });
  const cells = results.http?.cells ?? [];
  await writeFile(`${RESULTS}${plots.latency}`, latencyPlot(cells));
  await writeFile(`${RESULTS}${plots.rps}`, rpsPlot(cells));
  await writeFile(`${RESULTS}${plots.parser}`, parserPlot(parserBars(results.parser)));
  const json = `${JSON.stringify(results, null, 2)}\n`;
  await writeFile(`${RESULTS}latest.json`, json);
  if (archive) await writeFile(`${RESULTS}runs/${results.startedAt.replace(/[:.]/g, "-")}.json`, json);
  await writeFile(DOC, renderReport(results, plots));
};

// BENCH_RENDER_ONLY=1: re-render plots and document from results/latest.json without measuring.
if (process.env.BENCH_RENDER_ONLY === "1")
  await writeOutputs(JSON.parse(await readFile(`${RESULTS}latest.json`, "utf8")) as BenchResults, false);
else await main();
