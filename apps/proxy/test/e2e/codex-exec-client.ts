import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CODEX_JS = createRequire(import.meta.url).resolve("@openai/codex/bin/codex.js");

export interface CodexExecRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the real `codex exec` in `work` against the gateway at `url` (a custom provider, Responses
 * wire); it runs its tools on its own side. Its CODEX_HOME is a fresh dir pushed onto `dirs`.
 * `model` picks what codex offers: its catalog makes `gpt-5.5` send `apply_patch` as a custom tool.
 */
export const runCodexExec = async (
  url: string,
  work: string,
  dirs: string[],
  options: { readonly model?: string; readonly prompt?: string } = {},
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
    "request_max_retries = 0",
    "stream_max_retries = 0",
  ];
  await writeFile(join(home, "config.toml"), `${config.join("\n")}\n`);
  return new Promise<CodexExecRun>((resolve) => {
    const child = execFile(
      process.execPath,
      [
        CODEX_JS,
        "exec",
        "--skip-git-repo-check",
        "--ephemeral",
        "-s",
        "workspace-write",
        options.prompt ?? "create the marker file",
      ],
      {
        cwd: work,
        env: { PATH: process.env.PATH ?? "", HOME: home, CODEX_HOME: home, PROXY_KEY: "sk-exec" },
        timeout: 150_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
};
