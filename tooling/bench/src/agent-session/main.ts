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
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import {
  resolveCodexCommand,
  sealedAppServerArgs,
  sealedEnvironment,
  sealedThreadParams,
  writeSealedCatalog,
} from "@proxy/adapter-codex-appserver";
import {
  makeCodexHome,
  type RecordedRequest,
  type ScriptedResponse,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { median } from "../stats.js";
import { startDirectThread } from "./direct-thread.js";
import { processCpuMs } from "./process-cpu.js";
import { callIdIn, type Entry, requestFor, SURFACES, type Surface } from "./surfaces.js";

const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const TURNS = Number(flag("turns", "30"));
const OUTPUT_CHARS = Number(flag("output-chars", "5000"));
const REPS = Number(flag("reps", "5"));
const surfaces = flag("surfaces", SURFACES.join(",")).split(",") as Surface[];
const modes = flag("modes", "native,prompt").split(",") as Array<"native" | "prompt">;
const REGENERATE_EVERY = Number(flag("regenerate-every", "0"));
const log = (line: string) => process.stderr.write(`${line}\n`);

const toolCallText = (name: string, args: object) =>
  `<tool_call>${JSON.stringify({ name, arguments: JSON.stringify(args) })}</tool_call>`;

/** The scripted model: "Step k." and a tool call until the last turn; the direct baseline gets text only. */
const model = (r: RecordedRequest): ScriptedResponse => {
  const input = JSON.stringify(r.body.input ?? "");
  const done = (input.match(/OUTPUT#/g) ?? []).length;
  const step = `Step ${done + 1}. `;
  const tag = /session=([\w-]+)/.exec(input)?.[1] ?? "x";
  if (input.includes("DIRECT-BASELINE") || done >= TURNS - 1) return { chunks: [step, "Done."] };
  const args = { n: done + 1 };
  return ((r.body.tools ?? []) as unknown[]).length > 0
    ? {
        chunks: [step],
        items: [
          {
            type: "function_call",
            id: `fc_${tag}_${done}`,
            call_id: `call_${tag}_${done}`,
            name: "read_chunk",
            arguments: JSON.stringify(args),
          },
        ],
        itemsLast: true,
      }
    : { chunks: [step, toolCallText("read_chunk", args)] };
};
const outputOf = (k: number) =>
  `OUTPUT#${k} ${"lorem ipsum ".repeat(Math.ceil(OUTPUT_CHARS / 12)).slice(0, OUTPUT_CHARS)}`;

/** POSTs and reads the SSE stream: time to the first "Step" text, and the whole text. */
const stream = async (url: string, body: unknown, mode: string) => {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-proxy-tool-mode": mode },
    body: JSON.stringify(body),
  });
  let text = "";
  let ttftMs = Number.NaN;
  const decoder = new TextDecoder();
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    if (Number.isNaN(ttftMs) && text.includes("Step")) ttftMs = performance.now() - t0;
  }
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return { ttftMs, text, totalMs: performance.now() - t0 };
};

const main = async () => {
  const provider = await startScriptedModelProvider(model);
  const home = await makeCodexHome(provider.url);
  const scratch = await mkdtemp(join(tmpdir(), "bench-agent-"));
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home.path };
  const command = resolveCodexCommand(undefined, env);
  const meterFile = join(scratch, "stdin-bytes");
  await writeFile(meterFile, "0");
  const gatewayMain = fileURLToPath(new URL("../../../../apps/proxy/dist/main.js", import.meta.url));
  const gateway = spawn(process.execPath, [gatewayMain], {
    env: {
      ...env,
      PORT: "0",
      LOG_LEVEL: "info",
      CODEX_BIN: fileURLToPath(new URL("./stdin-meter.js", import.meta.url)),
      METER_CODEX: command,
      METER_FILE: meterFile,
      PROXY_CODEX_PASS_ENV: "METER_CODEX,METER_FILE",
      // Stateless sessions need no store (and the built SQLite adapter imports `sqlite`, not `node:sqlite`).
      PROXY_STORE: "none",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    gateway.stdout.on("data", (b: Buffer) => {
      buffered += b.toString();
      const m =
        /"msg":"gateway listening"[^\n]*"url":"([^"]+)"|"url":"([^"]+)"[^\n]*"msg":"gateway listening"/.exec(
          buffered,
        );
      if (m) resolve(m[1] ?? m[2] ?? "");
    });
    gateway.once("exit", (code) => reject(new Error(`gateway exited (${code})`)));
  });
  const stdinBytes = async () => Number(await readFile(meterFile, "utf8"));
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
        const [bytes0, cpu0] = [await stdinBytes(), await processCpuMs(gateway.pid as number)];
        const r = await stream(`${url}${path}`, body, mode);
        const [bytes1, cpu1] = [await stdinBytes(), await processCpuMs(gateway.pid as number)];
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
    gateway.kill("SIGTERM");
    await new Promise((r) => gateway.once("exit", r));
    await provider.close();
    await home.cleanup();
    await rm(scratch, { recursive: true, force: true });
  }
  process.stdout.write(
    `${JSON.stringify({ startedAt, turns: TURNS, reps: REPS, outputChars: OUTPUT_CHARS, regenerateEvery: REGENERATE_EVERY, keepEdits: process.env.PROXY_CODEX_KEEP_EDITS ?? "false", loadAverage: { start: loadAtStart, end: loadavg()[0] }, continuity: process.env.PROXY_CODEX_CONTINUITY ?? "true", results }, null, 2)}\n`,
  );
};

await main();
