import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/**
 * The variables codex's own configuration says its providers need: the `env_key` of the active
 * `model_provider` and of every provider a profile names. They belong to the operator's codex
 * setup, so the sealed child gets them without a separate pass-through list.
 */
export const providerEnvKeysOf = (config: Readonly<Record<string, unknown>>): string[] => {
  const providers = record(config.model_providers);
  const ids = [
    config.model_provider,
    ...Object.values(record(config.profiles)).map((p) => record(p).model_provider),
  ];
  const keys = new Set<string>();
  for (const id of ids) {
    if (typeof id !== "string") continue;
    const key = record(providers[id]).env_key;
    if (typeof key === "string" && VARIABLE.test(key)) keys.add(key);
  }
  return [...keys];
};

/** `$CODEX_HOME/config.toml` (default `~/.codex`), as codex finds it. */
export const codexConfigPath = (env: NodeJS.ProcessEnv): string =>
  join(env.CODEX_HOME || join(env.HOME || homedir(), ".codex"), "config.toml");

/**
 * Reads the provider keys from codex's config.toml. No file means none; a file that is not TOML is
 * reported through `onProblem` (codex itself then ignores the whole file and runs on its defaults).
 */
export const readProviderEnvKeys = async (
  env: NodeJS.ProcessEnv,
  onProblem: (path: string, error: unknown) => void,
): Promise<string[]> => {
  const path = codexConfigPath(env);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return [];
  }
  try {
    return providerEnvKeysOf(parse(text));
  } catch (error) {
    onProblem(path, error);
    return [];
  }
};
