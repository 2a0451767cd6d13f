import { mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliRun, runCli } from "./cli-clients.js";

const CODEX_JS = createRequire(import.meta.url).resolve("@openai/codex/bin/codex.js");

export type CodexExecRun = CliRun;

/**
 * Runs the real `codex exec` in `work` against the gateway at `url` (a custom provider, Responses
 * wire); it runs its tools on its own side. Its CODEX_HOME is a fresh dir pushed onto `dirs`.
 * `model` picks what codex offers: its catalog makes `gpt-5.5` send `apply_patch` as a custom tool.
 */
export const runCodexExec = async (
  url: string,
  work: string,
  dirs: string[],
  options: {
    readonly model?: string;
    readonly prompt?: string;
    /** `"default"`: codex's own request and stream retries (`"none"`, the default here, turns both off). */
    readonly retries?: "none" | "default";
  } = {},
): Promise<CodexExecRun> => {
  const home = await mkdtemp(join(tmpdir(), "exec-home-"));
  dirs.push(home);
  const config = [
    `model = "${options.model ?? "fake-model"}"`,
    'model_provider = "gateway"',
    "[model_providers.gateway]",
    'name = "gateway"',
    `base_url = "${url}/v1"`,
    'wire_api = "responses"',
    'env_key = "PROXY_KEY"',
    ...(options.retries === "default" ? [] : ["request_max_retries = 0", "stream_max_retries = 0"]),
  ];
  await writeFile(join(home, "config.toml"), `${config.join("\n")}\n`);
  const env = { PATH: process.env.PATH ?? "", HOME: home, CODEX_HOME: home, PROXY_KEY: "sk-exec" };
  const args = ["exec", "--skip-git-repo-check", "--ephemeral", "-s", "workspace-write"];
  return runCli(
    process.execPath,
    [CODEX_JS, ...args, options.prompt ?? "create the marker file"],
    work,
    env,
    150_000,
  );
};
