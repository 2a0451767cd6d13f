/**
 * The built gateway's cold start and idle RSS alone (no turns; `docs/benchmarks.md` is left as it
 * is): the codex-gateway section's split cold start, plus the same start with an OpenAI-compatible
 * route (the peer section's setup), each beside the earlier build when BENCH_BEFORE_DIR names one.
 * Run (after `pnpm run build`): `cd tooling/bench && BENCH_BEFORE_DIR=/work/wt/base node dist/cold-start-main.js [reps]`
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { resolveCodexCommand } from "@proxy/adapter-codex-appserver";
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { beforeFromEnv } from "./before.js";
import { type ColdStartResult, type GatewayColdStart, measureColdStart } from "./codex-cold-start.js";
import { startUpstream } from "./peer/peers.js";

const reps = Number(process.argv[2] ?? 7);
const before = beforeFromEnv(process.env);
const loadAtStart = loadavg()[0];
const provider = await startScriptedModelProvider(() => ({ text: "Hello." }));
const upstream = await startUpstream();
const home = await makeCodexHome(provider.url);
const scratch = await mkdtemp(join(tmpdir(), "bench-cold-start-"));
const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home.path };
const emptyPath = join(scratch, "empty-path");
await mkdir(emptyPath);
const command = resolveCodexCommand(undefined, env);
const run = (extra: NodeJS.ProcessEnv) =>
  measureColdStart({ command, env: { ...env, ...extra }, emptyPath, reps, ...(before ? { before } : {}) });
let codex: ColdStartResult;
let peer: ColdStartResult;
try {
  codex = await run({});
  // The peer section's gateway: OpenAI-compatible routes only, to the peer section's fake upstream.
  const models = ["fake-d8", "fake-d200", "fake-tool-d8"];
  peer = await run({
    PROXY_MODELS: JSON.stringify(
      models.map((id) => ({ id, backend: "openai-compatible", baseUrl: `${upstream.url}/v1` })),
    ),
  });
} finally {
  await provider.close();
  await upstream.close();
  await home.cleanup();
  await rm(scratch, { recursive: true, force: true });
}

const f = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "–");
const spread = (xs: ReadonlyArray<GatewayColdStart> | undefined, k: keyof GatewayColdStart) =>
  xs && xs.length > 0
    ? `${f(Math.min(...xs.map((g) => g[k] ?? Number.NaN)))}–${f(Math.max(...xs.map((g) => g[k] ?? Number.NaN)))}`
    : "";
const rows = (mode: string, r: ColdStartResult) =>
  [
    ["after", r.gateway, r.samples.gateway] as const,
    ...(r.before ? [[`before ${r.before.commit}`, r.before, r.samples.before] as const] : []),
  ].map(
    ([side, g, all]) =>
      `${mode.padEnd(6)}${side.padEnd(16)}${(
        ["firstLogLine", "appServerReady", "listening", "ready"] as const
      )
        .map((k) => `${f(g[k]).padStart(6)} (${spread(all, k)})`.padEnd(20))
        .join(
          "",
        )}${f(g.cpuMsToReady ?? Number.NaN).padStart(6)} (${spread(all, "cpuMsToReady")})  ${(g.idleRssMiB ?? Number.NaN).toFixed(1).padStart(7)} (${spread(all, "idleRssMiB")})`,
  );
process.stderr.write(
  `${[
    `medians of ${reps} rounds (min–max), ms from spawn; gateway CPU ms to /readyz 200; RSS MiB at /readyz 200 + 1 s`,
    `${"mode".padEnd(6)}${"build".padEnd(16)}${["first log", "app-server", "listening", "/readyz 200"].map((h) => h.padEnd(20)).join("")}CPU to ready  idle RSS`,
    ...rows("codex", codex),
    ...rows("peer", peer),
    `app-server alone ${f(codex.appServerAlone)} ms, node -e 0 ${f(codex.nodeAlone)} ms; load ${loadAtStart?.toFixed(2)} → ${loadavg()[0]?.toFixed(2)}`,
  ].join("\n")}\n`,
);
process.stdout.write(
  `${JSON.stringify({ loadAverage: [loadAtStart, loadavg()[0]], codex, peer }, null, 2)}\n`,
);
