import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** The native Claude Code binary the npm package ships (`node_modules/.bin/claude`). */
const CLAUDE = join(dirname(require.resolve("@anthropic-ai/claude-code/package.json")), "bin", "claude.exe");
const GEMINI_JS = join(dirname(require.resolve("@google/gemini-cli/package.json")), "bundle", "gemini.js");

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly elapsedMs: number;
}

/** Runs a client CLI to its end (stdin closed), timing it. */
export const runCli = (
  file: string,
  args: ReadonlyArray<string>,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
) =>
  new Promise<CliRun>((resolve) => {
    const started = performance.now();
    const child = execFile(file, [...args], { cwd, env, timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({
        code: error ? Number(error.code ?? 1) : 0,
        stdout,
        stderr,
        elapsedMs: performance.now() - started,
      }),
    );
    child.stdin?.end();
  });

/**
 * Claude Code `-p` (per the verified run recipe) against `url`, in `work`'s throwaway HOME and project
 * directory. `retries: "none"` sets `CLAUDE_CODE_MAX_RETRIES=0`; `"default"` leaves Claude Code's own.
 */
export const runClaudeCode = async (
  url: string,
  work: string,
  options: {
    readonly args?: ReadonlyArray<string>;
    readonly prompt?: string;
    readonly retries?: "none" | "default";
    readonly timeoutMs?: number;
  } = {},
): Promise<CliRun & { readonly project: string }> => {
  const home = join(work, "home");
  const project = join(work, "proj");
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TERM: "dumb",
    LANG: "C.UTF-8",
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...(options.retries === "default" ? {} : { CLAUDE_CODE_MAX_RETRIES: "0" }),
  };
  const args = ["-p", options.prompt ?? "Create marker.txt containing hi", "--output-format", "json"];
  const result = await runCli(
    CLAUDE,
    [...args, "--allowedTools", "Bash", ...(options.args ?? [])],
    project,
    env,
    options.timeoutMs ?? 90_000,
  );
  return { ...result, project };
};

/**
 * `gemini -p … --yolo [-m gemini-2.5-pro] --output-format json`, offline, against `baseUrl`, in a
 * throwaway HOME (settings per the reference recipe) and project under `work`. `retries: "none"`
 * sets `general.maxAttempts: 1`; `"default"` leaves the CLI's own.
 */
export const runGeminiCli = async (
  work: string,
  baseUrl: string,
  options: {
    readonly key: string;
    readonly pinModel?: boolean;
    readonly prompt?: string;
    readonly retries?: "none" | "default";
    readonly timeoutMs?: number;
  },
): Promise<CliRun> => {
  await mkdir(join(work, "home", ".gemini"), { recursive: true });
  await mkdir(join(work, "proj"), { recursive: true });
  await mkdir(join(work, "tmp"), { recursive: true });
  const general = { disableAutoUpdate: true, disableUpdateNag: true };
  await writeFile(
    join(work, "home", ".gemini", "settings.json"),
    JSON.stringify({
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: options.retries === "default" ? general : { ...general, maxAttempts: 1 },
    }),
  );
  const args = [
    "-p",
    options.prompt ?? "Create marker.txt containing hi",
    "--yolo",
    ...((options.pinModel ?? true) ? ["-m", "gemini-2.5-pro"] : []),
    "--output-format",
    "json",
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: join(work, "home"),
    TERM: "dumb",
    LANG: "C.UTF-8",
    TMPDIR: join(work, "tmp"),
    GEMINI_API_KEY: options.key,
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
  };
  return runCli(process.execPath, [GEMINI_JS, ...args], join(work, "proj"), env, options.timeoutMs ?? 90_000);
};
