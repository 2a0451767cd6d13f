/**
 * The agent session alternating two replicas: two built gateways (each its own process and codex)
 * on one throwaway PostgreSQL, every odd turn sent to the first and every even turn to the second,
 * as a load balancer that does not pin conversations does. Once with the replicas sharing
 * conversations (PROXY_REPLICA_URL/SECRET: a turn goes to the replica that holds the live thread)
 * and once without. Per turn: the provider's `prompt_cache_key` (share of turns with the
 * session's first key), bytes written to both codexes' stdin, both gateways' CPU, time to first
 * token, each the median over `--reps` interleaved sessions; chat surface, native and prompt mode.
 *   pnpm build && node tooling/bench/dist/agent-session/replicas-main.js [--turns 30] [--reps 3]
 *     [--regenerate-every 5]
 * `--regenerate-every N`: every Nth request regenerates the last answer (the previous request sent
 * again, to the replica whose turn it is), with `PROXY_CODEX_KEEP_EDITS=true` on both replicas.
 * Prints one line per session to stderr and the per-turn series as JSON to stdout.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { resolveCodexCommand } from "@proxy/adapter-codex-appserver";
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { startPostgresServer } from "@proxy/adapter-store-sql/testing";
import { flag, freePort } from "../proc.js";
import { median } from "../stats.js";
import { processCpuMs } from "./process-cpu.js";
import {
  type MeteredGateway,
  meterIn,
  outputOf,
  scriptedAgent,
  startMeteredGateway,
  stream,
} from "./session-kit.js";
import { callIdIn, type Entry, requestFor } from "./surfaces.js";

const TURNS = Number(flag("turns", "30"));
const OUTPUT_CHARS = Number(flag("output-chars", "5000"));
const REPS = Number(flag("reps", "3"));
const modes = flag("modes", "native,prompt").split(",") as Array<"native" | "prompt">;
const REGENERATE_EVERY = Number(flag("regenerate-every", "0"));
const log = (line: string) => process.stderr.write(`${line}\n`);
const SECRET = "bench-replica-secret-0123456789";

type Turn = {
  ttftMs: number;
  stdinBytes: number;
  gatewayCpuMs: number;
  cacheKey: unknown;
  regenerated: boolean;
};

const main = async () => {
  const postgres = await startPostgresServer();
  const provider = await startScriptedModelProvider(scriptedAgent(TURNS));
  const scratch = await mkdtemp(join(tmpdir(), "bench-replicas-"));
  const homes = await Promise.all([makeCodexHome(provider.url), makeCodexHome(provider.url)]);
  const command = resolveCodexCommand(undefined, process.env);
  const results: unknown[] = [];
  const loadAtStart = loadavg()[0];
  const started: MeteredGateway[] = [];

  /** Two replicas on one database, sharing conversations or not. */
  const pair = async (sharing: boolean) => {
    const store = await postgres.createDatabase(`bench_${sharing ? "shared" : "apart"}`);
    return Promise.all(
      homes.map(async (home, i) => {
        const port = await freePort();
        const gateway = await startMeteredGateway(
          {
            ...process.env,
            CODEX_HOME: home.path,
            PORT: String(port),
            PROXY_STORE: store,
            ...(REGENERATE_EVERY > 0 ? { PROXY_CODEX_KEEP_EDITS: "true" } : {}),
            ...(sharing
              ? { PROXY_REPLICA_URL: `http://127.0.0.1:${port}`, PROXY_REPLICA_SECRET: SECRET }
              : {}),
          },
          command,
          meterIn(scratch, `${sharing ? "shared" : "apart"}-${i}`),
        );
        started.push(gateway);
        return gateway;
      }),
    );
  };
  try {
    const variants = [
      { label: "two replicas alternating", replicas: await pair(true) },
      { label: "two replicas alternating, no owner-forwarding", replicas: await pair(false) },
    ];
    /** One session of TURNS chat requests in `mode`, turn k on replica (k - 1) mod 2. */
    const session = async (
      replicas: MeteredGateway[],
      mode: "native" | "prompt",
      rep: number,
      label: string,
    ) => {
      const tag = `replicas-${mode}-${rep}-${label.length}-${Date.now()}`;
      const entries: Entry[] = [{ kind: "user", text: `session=${tag}: read every chunk` }];
      const turns: Turn[] = [];
      const bytes = async () =>
        (await Promise.all(replicas.map((g) => g.stdinBytes()))).reduce((a, b) => a + b);
      const cpu = async () =>
        (await Promise.all(replicas.map((g) => processCpuMs(g.pid)))).reduce((a, b) => a + b);
      for (let k = 1; k <= TURNS; k++) {
        const target = replicas[(k - 1) % 2] as MeteredGateway;
        // A regenerate: the previous request's answer (the model's step and its tool's output) is
        // dropped and that request sent again; the new answer takes the old one's place.
        const regenerated = REGENERATE_EVERY > 0 && k % REGENERATE_EVERY === 0 && entries.length >= 3;
        if (regenerated) entries.splice(-2);
        const { path, body } = requestFor("chat", entries);
        const [bytes0, cpu0] = [await bytes(), await cpu()];
        const r = await stream(`${target.url}${path}`, body, mode);
        const [bytes1, cpu1] = [await bytes(), await cpu()];
        turns.push({
          ttftMs: r.ttftMs,
          stdinBytes: bytes1 - bytes0,
          gatewayCpuMs: cpu1 - cpu0,
          cacheKey: provider.requests.at(-1)?.body.prompt_cache_key,
          regenerated,
        });
        if (k === TURNS) break;
        const id = callIdIn("chat", r.text);
        if (id === undefined) throw new Error(`${tag} turn ${k}: no tool call in ${r.text.slice(0, 400)}`);
        // The model's step is the number of outputs it was shown plus one.
        const n = entries.filter((e) => e.kind === "result").length + 1;
        const call = { id, name: "read_chunk", args: { n } };
        entries.push(
          { kind: "assistant", text: `Step ${n}. `, call },
          { kind: "result", call, output: outputOf(n, OUTPUT_CHARS) },
        );
      }
      return turns;
    };
    const runs = new Map<string, Turn[][]>();
    for (let rep = 0; rep < REPS; rep++)
      for (const mode of modes)
        for (const { label, replicas } of variants) {
          const key = `chat/${mode}, ${label}`;
          runs.set(key, [...(runs.get(key) ?? []), await session(replicas, mode, rep, label)]);
        }
    for (const [key, reps] of runs) {
      const turns = Array.from({ length: TURNS }, (_, i) => {
        const at = reps.map((r) => r[i] as Turn);
        return {
          ttftMs: median(at.map((t) => t.ttftMs)),
          stdinBytes: median(at.map((t) => t.stdinBytes)),
          gatewayCpuMs: median(at.map((t) => t.gatewayCpuMs)),
          // The same turns are regenerated in every repetition.
          ...(REGENERATE_EVERY > 0 ? { regenerated: at[0]?.regenerated === true } : {}),
        };
      });
      const firstKey = (r: Turn[]) => r.filter((t) => t.cacheKey === r[0]?.cacheKey).length;
      const share = reps.reduce((n, r) => n + firstKey(r), 0) / (TURNS * reps.length);
      const linear = (r: Turn[]) => r.filter((t) => !t.regenerated);
      const linearShare =
        reps.reduce((n, r) => n + linear(r).filter((t) => t.cacheKey === r[0]?.cacheKey).length, 0) /
        reps.reduce((n, r) => n + linear(r).length, 0);
      const last = turns.at(-1);
      const regenerates = turns.filter((t) => "regenerated" in t && t.regenerated);
      const edits =
        regenerates.length === 0
          ? ""
          : ` | regenerates: median stdin ${median(regenerates.map((t) => t.stdinBytes))} B, TTFT ${median(regenerates.map((t) => t.ttftMs)).toFixed(1)} ms; linear first-key share ${(linearShare * 100).toFixed(0)}%`;
      log(
        `${key.padEnd(56)} first-key share ${(share * 100).toFixed(0)}% | turn ${TURNS} (median of ${REPS}): stdin ${last?.stdinBytes} B, CPU (both) ${last?.gatewayCpuMs.toFixed(2)} ms, TTFT ${last?.ttftMs.toFixed(1)} ms${edits}`,
      );
      results.push({
        session: key,
        firstKeyShare: share,
        ...(REGENERATE_EVERY > 0 ? { linearFirstKeyShare: linearShare } : {}),
        turns,
        gatewayCpuMsByRep: reps.map((r) => r.map((t) => t.gatewayCpuMs)),
      });
    }
  } finally {
    for (const gateway of started) await gateway.stop();
    await provider.close();
    for (const home of homes) await home.cleanup();
    await postgres.stop();
    await rm(scratch, { recursive: true, force: true });
  }
  process.stdout.write(
    `${JSON.stringify({ turns: TURNS, reps: REPS, outputChars: OUTPUT_CHARS, regenerateEvery: REGENERATE_EVERY, loadAverage: { start: loadAtStart, end: loadavg()[0] }, continuity: "true", results }, null, 2)}\n`,
  );
};

await main();
