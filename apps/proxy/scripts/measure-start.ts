/**
 * Cold start and idle RSS of the built gateway (the bin, as `npm start` runs it), gateway process only.
 *   pnpm --filter @proxy/gateway exec tsx --conditions=@proxy/source scripts/measure-start.ts [codex|peer] [runs]
 * codex: the default mode (codex backend behind the scripted model provider, embedded SQLite store).
 * peer: the bench's peer mode (one openai-compatible route per model, an upstream that is never asked).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";

const BIN =
  process.env.MEASURE_BIN || fileURLToPath(new URL("../bin/codex-tool-gateway.mjs", import.meta.url));
const mode = process.argv[2] ?? "codex";
const runs = Number(process.argv[3] ?? 5);
const rssMiB = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};
/** user + system CPU of a process in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** When `url` first answers as `ok` says (polled every 5 ms), or NaN after 15 s. */
const until = async (url: string, ok: (r: Response) => Promise<boolean>) => {
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    const good = await fetch(url).then(ok, () => false);
    if (good) return performance.now();
    await sleep(5);
  }
  return Number.NaN;
};

const provider = await startScriptedModelProvider(() => ({ text: "hi" }));
const home = await makeCodexHome(provider.url);
const results: Array<{ healthz: number; readyz: number; rss: number; cpu: number }> = [];
for (let i = 0; i < runs; i++) {
  const dataDir = await mkdtemp(join(tmpdir(), "measure-start-"));
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dataDir,
    HOST: "127.0.0.1",
    PORT: String(port),
    PROXY_DATA_DIR: dataDir,
    CODEX_HOME: home.path,
    ...(process.env.STUB ? { STUB: process.env.STUB } : {}),
    ...(process.env.NODE_DISABLE_COMPILE_CACHE ? { NODE_DISABLE_COMPILE_CACHE: "1" } : {}),
    ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
    ...(mode === "peer"
      ? {
          PROXY_MODELS: JSON.stringify(
            ["m1", "m2"].map((id) => ({
              id,
              backend: "openai-compatible",
              baseUrl: "http://127.0.0.1:9/v1",
            })),
          ),
        }
      : {}),
  };
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [...(process.env.MEASURE_NODE_ARGS?.split(" ").filter(Boolean) ?? []), BIN],
    { env, stdio: ["ignore", "ignore", "inherit"] },
  );
  const url = `http://127.0.0.1:${port}`;
  const healthz = (await until(`${url}/healthz`, async (r) => r.ok)) - t0;
  const cpu = cpuMs(child.pid as number);
  // The peer mode's routes are never asked, so its /readyz is not a start-up time.
  const readyz = mode === "peer" ? Number.NaN : (await until(`${url}/readyz`, async (r) => r.ok)) - t0;
  await sleep(Math.max(0, t0 + healthz + 1000 - performance.now()));
  const rss = rssMiB(child.pid as number);
  results.push({ healthz, readyz, rss, cpu });
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  await rm(dataDir, { recursive: true, force: true });
}
await provider.close();
await home.cleanup();
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const r of results)
  console.log(
    `healthz ${r.healthz.toFixed(0)} ms  readyz ${r.readyz.toFixed(0)} ms  rss ${r.rss.toFixed(1)} MiB`,
  );
console.log(
  `${mode}: median healthz ${med(results.map((r) => r.healthz)).toFixed(0)} ms (gateway CPU ${med(results.map((r) => r.cpu))} ms), readyz ${med(results.map((r) => r.readyz)).toFixed(0)} ms, idle RSS ${med(results.map((r) => r.rss)).toFixed(1)} MiB (${runs} runs)`,
);
