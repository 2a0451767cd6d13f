import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CodexHome {
  /** Use as `CODEX_HOME` for the app-server child. */
  readonly path: string;
  /** The provider id written to config.toml (`model_provider`). */
  readonly providerId: string;
  cleanup(): Promise<void>;
}

/**
 * A throwaway `CODEX_HOME` whose config.toml points codex at a local Responses server. No
 * `env_key`: codex 0.169 then sends no Authorization header and needs no key in the environment
 * (verified; with an `env_key` a missing variable fails every turn). Retries are off so a scripted
 * failure fails the turn at once instead of after ~25 s of backoff.
 */
export const makeCodexHome = async (
  providerUrl: string,
  options: {
    readonly model?: string;
    readonly streamIdleTimeoutMs?: number;
    /** Upstream stream retries (default 0); >0 makes codex emit `error` notifications with `willRetry:true`. */
    readonly streamMaxRetries?: number;
  } = {},
): Promise<CodexHome> => {
  const path = await mkdtemp(join(tmpdir(), "codex-home-"));
  const providerId = "scripted";
  const toml = [
    `model = ${JSON.stringify(options.model ?? "scripted-model")}`,
    `model_provider = "${providerId}"`,
    "",
    `[model_providers.${providerId}]`,
    `name = "${providerId}"`,
    `base_url = ${JSON.stringify(providerUrl)}`,
    `wire_api = "responses"`,
    "request_max_retries = 0",
    `stream_max_retries = ${options.streamMaxRetries ?? 0}`,
    `stream_idle_timeout_ms = ${options.streamIdleTimeoutMs ?? 60_000}`,
    "",
  ].join("\n");
  await writeFile(join(path, "config.toml"), toml);
  // Retried: an app-server whose parent was just killed may still be writing here (its system
  // skills under skills/.system) until it notices its stdin closed.
  const cleanup = () => rm(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  return { path, providerId, cleanup };
};
