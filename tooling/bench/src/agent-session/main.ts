/**
 * A scripted agent session: each turn the model says a few words and calls a tool, the
 * client sends the tool's output back (growing history), for `turns` requests, on each surface in
 * native and prompt mode, through the gateway (its own process, over the real codex) and against
 * codex driven directly with ONE thread. Per turn: the provider's `prompt_cache_key` (share of
 * turns with the session's first key), bytes written to codex's stdin, gateway CPU, time to first
 * token, each the median over `--reps` interleaved sessions. Not part of `pnpm bench` (the lead runs
 * it on a quiet machine), built code as the bench runs it:
 *   pnpm build && node tooling/bench/dist/agent-session/main.js \
 *     [--turns 30] [--reps 5] [--output-chars 5000] [--surfaces chat,responses,messages,gemini] [--modes native,prompt]
 *     [--regenerate-every 5]
 * `PROXY_CODEX_CONTINUITY=false` in the environment measures the gateway without continuity.
 * `--regenerate-every N`: an edit-heavy session, every Nth request regenerates the last answer (the
 * previous request sent again, its answer then replacing the old one); run it with
 * `PROXY_CODEX_KEEP_EDITS=true` (the thread reverted) and without (a fresh thread per edit).
 * Prints one line per session to stderr and the per-turn series as JSON to stdout.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  resolveCodexCommand,
  sealedAppServerArgs,
  sealedEnvironment,
  sealedThreadParams,
  writeSealedCatalog,
} from "@proxy/adapter-codex-appserver";
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { flag } from "../proc.js";
import { median } from "../stats.js";
import { startDirectThread } from "./direct-thread.js";
import { processCpuMs } from "./process-cpu.js";
import {
  meterIn,
  outputOf as outputOfChars,
  scriptedAgent,
  startMeteredGateway,
  stream,
} from "./session-kit.js";
import { callIdIn, type Entry, requestFor, SURFACES, type Surface } from "./surfaces.js";

const TURNS = Number(flag("turns", "30"));
const OUTPUT_CHARS = Number(flag("output-chars", "5000"));
const REPS = Number(flag("reps", "5"));
const surfaces = flag("surfaces", SURFACES.join(",")).split(",") as Surface[];
const modes = flag("modes", "native,prompt").split(",") as Array<"native" | "prompt">;
const REGENERATE_EVERY = Number(flag("regenerate-every", "0"));
const log = (line: string) => process.stderr.write(`${line}\n`);

const model = scriptedAgent(TURNS);
const outputOf = (k: number) => outputOfChars(k, OUTPUT_CHARS);

const main = async () => {
  const provider = await startScriptedModelProvider(model);
  const home = await makeCodexHome(provider.url);
  const scratch = await mkdtemp(join(tmpdir(), "bench-agent-"));
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home.path };
  const command = resolveCodexCommand(undefined, env);
  const gateway = await startMeteredGateway(
    // Stateless sessions need no store (and the built SQLite adapter imports `sqlite`, not `node:sqlite`).
    { ...env, PROXY_STORE: "none" },
    command,
    meterIn(scratch, "gateway"),
  );
  const { url } = gateway;
  await mkdir(join(scratch, "empty-path"));
  const threadParams = {
    ...sealedThreadParams(await writeSealedCatalog({ command, env, dir: scratch }), scratch),
    model: "scripted-model",
    baseInstructions: "You are a helpful assistant.",
  };
  const childEnv = sealedEnvironment(env, [], join(scratch, "empty-path"));
  const results: unknown[] = [];
  const loadAtStart = loadavg()[0];
  const startedAt = new Date().toISOString();
  try {
    // codex driven directly, one thread for the whole session: the baseline (median of REPS sessions).
    const directSession = async () => {
      const direct = await startDirectThread(
        command,
        ["app-server", ...sealedAppServerArgs()],
        childEnv,
        threadParams,
      );
      const turns: Array<{ ttftMs: number; stdinBytes: number }> = [];
      let before = direct.stdinBytes();
      for (let k = 1; k <= TURNS; k++) {
        const t = await direct.turn(
          k === 1 ? "DIRECT-BASELINE session=direct: read every chunk" : outputOf(k - 1),
        );
        turns.push({ ttftMs: t.firstDeltaMs, stdinBytes: direct.stdinBytes() - before });
        before = direct.stdinBytes();
      }
      await direct.close();
      return turns;
    };
    const directReps: Array<Awaited<ReturnType<typeof directSession>>> = [];
    for (let rep = 0; rep < REPS; rep++) directReps.push(await directSession());
    const directTurns = Array.from({ length: TURNS }, (_, i) => ({
      ttftMs: median(directReps.map((r) => r[i]?.ttftMs ?? Number.NaN)),
      stdinBytes: median(directReps.map((r) => r[i]?.stdinBytes ?? Number.NaN)),
    }));
    results.push({ session: "direct", turns: directTurns });
    log(
      `direct (one thread): ttft turn 1 ${directTurns[0]?.ttftMs.toFixed(1)} ms, turn ${TURNS} ${directTurns.at(-1)?.ttftMs.toFixed(1)} ms`,
    );

    type Turn = {
      ttftMs: number;
      stdinBytes: number;
      gatewayCpuMs: number;
      cacheKey: unknown;
      regenerated: boolean;
    };
    /** One session of TURNS requests on `surface` in `mode`, each turn measured. */
    const session = async (surface: Surface, mode: "native" | "prompt", rep: number) => {
      const tag = `${surface}-${mode}-${rep}-${Date.now()}`;
      const entries: Entry[] = [{ kind: "user", text: `session=${tag}: read every chunk` }];
      const turns: Turn[] = [];
      for (let k = 1; k <= TURNS; k++) {
        // A regenerate: the answer of the previous request (the model's step and its tool's output)
        // is dropped and that request sent again; the new answer takes the old one's place.
        const regenerated = REGENERATE_EVERY > 0 && k % REGENERATE_EVERY === 0 && entries.length >= 3;
        if (regenerated) entries.splice(-2);
        const { path, body } = requestFor(surface, entries);
        const [bytes0, cpu0] = [await gateway.stdinBytes(), await processCpuMs(gateway.pid)];
        const r = await stream(`${url}${path}`, body, mode);
        const [bytes1, cpu1] = [await gateway.stdinBytes(), await processCpuMs(gateway.pid)];
        turns.push({
          ttftMs: r.ttftMs,
          stdinBytes: bytes1 - bytes0,
          gatewayCpuMs: cpu1 - cpu0,
          cacheKey: provider.requests.at(-1)?.body.prompt_cache_key,
          regenerated,
        });
        if (k === TURNS) break;
        const id = callIdIn(surface, r.text);
        if (id === undefined) throw new Error(`${tag} turn ${k}: no tool call in ${r.text.slice(0, 400)}`);
        // The model's step is the number of outputs it was shown plus one.
        const n = entries.filter((e) => e.kind === "result").length + 1;
        const call = { id, name: "read_chunk", args: { n } };
        entries.push(
          { kind: "assistant", text: `Step ${n}. `, call },
          { kind: "result", call, output: outputOf(n) },
        );
      }
      return turns;
    };
    // Every session REPS times, the sessions interleaved, so a slow moment of the machine falls on
    // one repetition of each rather than on all of one session; per turn the median is reported.
    const runs = new Map<string, Turn[][]>();
    for (let rep = 0; rep < REPS; rep++)
      for (const mode of modes)
        for (const surface of surfaces) {
          const key = `${surface}/${mode}`;
          runs.set(key, [...(runs.get(key) ?? []), await session(surface, mode, rep)]);
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
      // The linear turns of an edit-heavy session: every turn that is not a regenerate.
      const linear = (r: Turn[]) => r.filter((t) => !t.regenerated);
      const linearShare =
        reps.reduce((n, r) => n + linear(r).filter((t) => t.cacheKey === r[0]?.cacheKey).length, 0) /
        reps.reduce((n, r) => n + linear(r).length, 0);
      const last = turns.at(-1);
      const ratio = (last?.ttftMs ?? Number.NaN) / (directTurns.at(-1)?.ttftMs ?? Number.NaN);
      log(
        `${key.padEnd(16)} first-key share ${(share * 100).toFixed(0)}% | turn ${TURNS} (median of ${REPS}): stdin ${last?.stdinBytes} B, gateway CPU ${last?.gatewayCpuMs.toFixed(2)} ms, TTFT ${last?.ttftMs.toFixed(1)} ms, gateway/direct ${ratio.toFixed(2)}`,
      );
      results.push({
        session: key,
        firstKeyShare: share,
        ...(REGENERATE_EVERY > 0 ? { linearFirstKeyShare: linearShare } : {}),
        ttftRatioAtLast: ratio,
        turns,
        gatewayCpuMsByRep: reps.map((r) => r.map((t) => t.gatewayCpuMs)),
      });
    }
  } finally {
    await gateway.stop();
    await provider.close();
    await home.cleanup();
    await rm(scratch, { recursive: true, force: true });
  }
  process.stdout.write(
    `${JSON.stringify({ startedAt, turns: TURNS, reps: REPS, outputChars: OUTPUT_CHARS, regenerateEvery: REGENERATE_EVERY, keepEdits: process.env.PROXY_CODEX_KEEP_EDITS ?? "false", loadAverage: { start: loadAtStart, end: loadavg()[0] }, continuity: process.env.PROXY_CODEX_CONTINUITY ?? "true", results }, null, 2)}\n`,
  );
};

await main();
