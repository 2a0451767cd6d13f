import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
/** The built bin, started the way the README starts it: plain `node`, no source condition, no tsx. */
export const BUILT_BIN = fileURLToPath(new URL("../../bin/codex-tool-gateway.mjs", import.meta.url));

export interface SpawnedGateway {
  readonly child: ChildProcess;
  readonly url: string;
  readonly lines: Array<Record<string, unknown>>;
  /** What it printed besides its log lines: stdout's other lines and stderr's (the last 4,000 characters). */
  output(): string;
  readonly exited: Promise<number | null>;
}

/**
 * The gateway as its own process (as `npm start` runs it): a test whose subject could block the
 * gateway's event loop must not share that loop, or it could not observe the block.
 */
export const spawnGateway = async (
  env: Record<string, string>,
  options: {
    readonly detached?: boolean;
    /** Run this command instead of the sources through tsx (e.g. `[BUILT_BIN]`, or an installed bin). */
    readonly command?: ReadonlyArray<string>;
    readonly cwd?: string;
    /** Start from this process's environment (default); false: `env` is the whole environment. */
    readonly inheritEnv?: boolean;
  } = {},
): Promise<SpawnedGateway> => {
  const [file, ...args] = options.command ?? [
    process.execPath,
    "--conditions=@proxy/source",
    "--import",
    createRequire(import.meta.url).resolve("tsx"),
    main,
  ];
  const child = spawn(file as string, args, {
    env: { ...(options.inheritEnv === false ? {} : process.env), PORT: "0", LOG_LEVEL: "info", ...env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ["ignore", "pipe", "pipe"],
    // detached: the gateway leads its own process group, like `npm start` in a terminal.
    detached: options.detached === true,
  });
  const lines: Array<Record<string, unknown>> = [];
  const other: string[] = [];
  let buffered = "";
  child.stdout?.on("data", (b: Buffer) => {
    buffered += b.toString();
    for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      try {
        lines.push(JSON.parse(line));
      } catch {
        if (other.length < 1_000) other.push(line); // not a log line
      }
    }
  });
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const listening = lines.find((l) => l.msg === "gateway listening");
      if (listening) {
        clearInterval(timer);
        resolve(String(listening.url));
      }
    }, 50);
    child.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`gateway exited early (${code}): ${stderr.slice(-2000)}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, url, lines, output: () => `${other.join("\n")}\n${stderr}`, exited };
};
