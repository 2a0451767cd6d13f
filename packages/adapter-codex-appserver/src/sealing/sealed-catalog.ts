import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { commandLine } from "../codex-binary.js";

const run = promisify(execFile);

type ModelEntry = Record<string, unknown>;

/**
 * One catalog entry with every tool-bearing knob turned off. `tool_mode:"direct"` is the one
 * that matters (it removes code-mode `exec`); the rest close the remaining doors: no sub-agent
 * namespace, no apply_patch tool, no experimental tools, no shell, no tool search, no node REPL.
 */
export const sealModel = (model: ModelEntry): ModelEntry => ({
  ...model,
  tool_mode: "direct",
  multi_agent_version: null,
  apply_patch_tool_type: null,
  experimental_supported_tools: [],
  shell_type: "disabled",
  supports_search_tool: false,
  node_repl_disabled: true,
});

/** Seals a parsed `codex debug models --bundled` document; throws if it is not one. */
export const sealCatalog = (catalog: unknown): { models: ModelEntry[] } => {
  const models = (catalog as { models?: unknown } | null)?.models;
  if (!Array.isArray(models) || models.length === 0 || !models.every((m) => typeof m?.slug === "string"))
    throw new Error("codex debug models --bundled did not print a model catalog");
  return { ...(catalog as object), models: models.map(sealModel) };
};

/**
 * Each catalog model's context window in tokens, as codex uses it: `context_window` scaled by
 * `effective_context_window_percent` (codex keeps the rest for its own instructions and output).
 */
export const contextWindowsOf = (catalog: { models: ModelEntry[] }): ReadonlyMap<string, number> => {
  const windows = new Map<string, number>();
  for (const model of catalog.models) {
    const { slug, context_window: window, effective_context_window_percent: percent } = model;
    if (typeof slug !== "string" || typeof window !== "number" || !(window > 0)) continue;
    const share = typeof percent === "number" && percent > 0 && percent <= 100 ? percent / 100 : 1;
    windows.set(slug, Math.floor(window * share));
  }
  return windows;
};

/**
 * Generates the sealed `model_catalog_json` once at startup from the codex binary's own bundled
 * catalog (so it always matches the binary's schema) and writes it into the backend's private
 * temp dir. Returns the file path and each model's context window.
 */
export const writeSealedCatalogWithWindows = async (options: {
  readonly command: string;
  readonly env: NodeJS.ProcessEnv;
  readonly dir: string;
}): Promise<{ readonly path: string; readonly contextWindows: ReadonlyMap<string, number> }> => {
  const [file, args] = commandLine(options.command, ["debug", "models", "--bundled"]);
  const { stdout } = await run(file, args, {
    env: options.env,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  const sealed = sealCatalog(JSON.parse(stdout));
  const path = join(options.dir, "models.sealed.json");
  await writeFile(path, JSON.stringify(sealed), { mode: 0o600 });
  return { path, contextWindows: contextWindowsOf(sealed) };
};

/** `writeSealedCatalogWithWindows`, the file path alone. */
export const writeSealedCatalog = async (options: {
  readonly command: string;
  readonly env: NodeJS.ProcessEnv;
  readonly dir: string;
}): Promise<string> => (await writeSealedCatalogWithWindows(options)).path;
