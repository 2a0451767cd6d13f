import { ConfigError } from "./config-error.js";

/** Settings of the earlier codex proxies that mean the same as one of ours: honoured under the old name. */
export const LEGACY_ALIASES: Readonly<Record<string, string>> = {
  PROXY_ENABLE_PARALLEL_TOOL_CALLS: "PROXY_PARALLEL_TOOL_CALLS",
  PROXY_SUPPRESS_TAIL_AFTER_TOOLS: "PROXY_STOP_AFTER_TOOLS",
};

/** Settings of the earlier codex proxies with no equivalent: startup stops and says what replaces them. */
export const RETIRED_SETTINGS: Readonly<Record<string, string>> = {
  PROXY_TOOL_BLOCK_DELIMITER:
    "in obsidian-xml mode every <use_tool> block already ends on its own line; remove the setting",
  PROXY_RESPONSES_OUTPUT_MODE:
    "use PROXY_OUTPUT_MODE (it applies to /v1/chat/completions and /v1/responses alike) or the x-proxy-output-mode request header",
  PROXY_IGNORE_CLIENT_SYSTEM_PROMPT:
    "client system and developer messages are always given to the model as instructions; remove the setting",
};

/**
 * The environment with legacy aliases moved to their current names. A retired setting, or an alias
 * set next to its current name with a different value, stops startup: nothing is silently ignored.
 */
export const applyLegacySettings = (
  env: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, string | undefined>> => {
  for (const [name, replacement] of Object.entries(RETIRED_SETTINGS)) {
    if (env[name] !== undefined) throw new ConfigError(`${name} is no longer supported: ${replacement}.`);
  }
  let out = env;
  for (const [legacy, current] of Object.entries(LEGACY_ALIASES)) {
    const value = env[legacy];
    if (value === undefined) continue;
    const set = env[current];
    if (set !== undefined && set.trim() !== value.trim())
      throw new ConfigError(
        `${legacy} (a legacy alias of ${current}) disagrees with ${current}: set only ${current}.`,
      );
    out = { ...out, [current]: value };
  }
  return out;
};
