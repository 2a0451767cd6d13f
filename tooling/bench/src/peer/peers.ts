/**
 * The processes of the peer benchmark: the fake upstream, our built gateway (`apps/proxy/dist`, as
 * `npm start` runs it, with one OpenAI-compatible route per model) and Portkey's gateway from npm,
 * each one plain Node process. CPU and RSS are read from /proc, so nothing is asked of the servers.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, rssOf } from "../proc.js";

const UPSTREAM_MAIN = fileURLToPath(new URL(`./upstream-main${extname(import.meta.url)}`, import.meta.url));
const BARE_MAIN = fileURLToPath(new URL(`./bare-forwarder-main${extname(import.meta.url)}`, import.meta.url));
const GATEWAY_BIN = fileURLToPath(
  new URL("../../../../apps/proxy/bin/codex-tool-gateway.mjs", import.meta.url),
);

/** `before`: an earlier commit's build of ours (BENCH_BEFORE_DIR), when the run compares one. */
export type PeerName = "direct" | "bare" | "portkey" | "ours" | "before";

export interface PeerProcess {
  readonly name: PeerName | "upstream";
  readonly url: string;
  readonly pid: number;
  /** Headers every request to this peer carries (Portkey's provider routing). */
  readonly headers: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

const waitFor = async (url: string, child: ChildProcess, what: string) => {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer ${url} within 30 s`);
};

const closer = (child: ChildProcess) => async () => {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
};

/** A child that prints `{"port":N}` once listening (the upstream, the bare forwarder). */
const startListening = async (
  main: string,
  name: "upstream" | "bare",
  env?: Readonly<Record<string, string>>,
): Promise<PeerProcess> => {
  const child = spawn(process.execPath, [main], {
    stdio: ["ignore", "pipe", "inherit"],
    ...(env ? { env: { PATH: process.env.PATH ?? "", ...env } } : {}),
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
    child.stdout?.once("data", (d: Buffer) => resolve((JSON.parse(d.toString()) as { port: number }).port));
  });
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    headers: {},
    close: closer(child),
  };
};

export const startUpstream = (): Promise<PeerProcess> => startListening(UPSTREAM_MAIN, "upstream");

/** The limit for a Node gateway: node:http in, undici out, the same bytes (bare-forwarder-main.ts). */
export const startBare = (upstream: string): Promise<PeerProcess> =>
  startListening(BARE_MAIN, "bare", { UPSTREAM: upstream });

/**
 * Our gateway from its build, one `openai-compatible` route per model, logs to a file (as deployed).
 * `bin` and `name`: another build of ours (an earlier commit's bin) as its own contender.
 */
export const startOurs = async (
  upstream: string,
  models: ReadonlyArray<string>,
  logFile: string,
  other?: { readonly bin: string; readonly name: "before" },
): Promise<PeerProcess> => {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), "bench-peer-ours-"));
  const routes = models.map((id) => ({ id, backend: "openai-compatible", baseUrl: `${upstream}/v1` }));
  const log = createWriteStream(logFile);
  // BENCH_PEER_GATEWAY_BIN: another build of ours (e.g. an earlier commit's bin) for a before/after.
  const bin = other?.bin ?? (process.env.BENCH_PEER_GATEWAY_BIN || GATEWAY_BIN);
  const child = spawn(process.execPath, [bin], {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? dataDir,
      HOST: "127.0.0.1",
      PORT: String(port),
      PROXY_DATA_DIR: dataDir,
      PROXY_MODELS: JSON.stringify(routes),
      ...(process.env.BENCH_PEER_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_PEER_LOG_LEVEL } : {}),
    },
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, child, other ? `our gateway (${other.name}: ${bin})` : "our gateway");
  return {
    name: other?.name ?? "ours",
    url,
    pid: child.pid as number,
    headers: {},
    close: closer(child),
  };
};

/** Portkey's gateway (`@portkey-ai/gateway`, the bench's dev dependency) routing to the upstream. */
export const startPortkey = async (upstream: string, logFile: string): Promise<PeerProcess> => {
  const port = await freePort();
  const entry = createRequire(import.meta.url).resolve("@portkey-ai/gateway/build/start-server.js");
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, [entry, "--headless", `--port=${port}`], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), NODE_ENV: "production" },
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url, child, "Portkey's gateway");
  return {
    name: "portkey",
    url,
    pid: child.pid as number,
    headers: {
      "x-portkey-provider": "openai",
      "x-portkey-custom-host": `${upstream}/v1`,
      authorization: "Bearer unused",
    },
    close: closer(child),
  };
};

/** user + system CPU of a process in microseconds, from /proc (clock ticks of 10 ms). */
export const cpuUsOf = async (pid: number): Promise<number> => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

export { rssOf };
