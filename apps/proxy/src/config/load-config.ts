import { readFileSync } from "node:fs";
import { ConfigError, type GatewayConfig, resolveConfig, type UnknownSetting } from "./config.js";

/** Why a file could not be read, in words (`ENOENT` → "no such file"). */
const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "it is a directory",
};

/** The config file's values: a JSON object, or a ConfigError naming the file, the setting and the fix. */
const readConfigFile = (path: string, setting: string): Readonly<Record<string, unknown>> => {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = String((error as NodeJS.ErrnoException).code);
    throw new ConfigError(
      `${setting}: cannot read the config file ${path} (${READ_ERRORS[code] ?? (error as Error).message}): fix the path, or unset ${setting}.`,
    );
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `${setting}: the config file ${path} is not valid JSON (${(error as Error).message}): fix it, or unset ${setting}.`,
    );
  }
  if (typeof values !== "object" || values === null || Array.isArray(values))
    throw new ConfigError(
      `${setting}: the config file ${path} must hold one JSON object ({"port": 8787, …}), not ${Array.isArray(values) ? "a list" : JSON.stringify(values)}.`,
    );
  return values as Record<string, unknown>;
};

/**
 * The configuration a process starts with: defaults ← config file ← environment ← flags. Throws a
 * ConfigError with one line naming the setting; `PROXY_*` variables that are no setting come back
 * as warnings, for the log.
 */
export const loadConfig = (
  env: Readonly<Record<string, string | undefined>>,
  flags: Readonly<Record<string, string>>,
): { readonly config: GatewayConfig; readonly warnings: ReadonlyArray<UnknownSetting> } => {
  const fromFlag = flags.configFile !== undefined;
  const path = flags.configFile ?? env.PROXY_CONFIG_FILE;
  const setting = fromFlag ? "--config-file" : "PROXY_CONFIG_FILE";
  const file = path ? readConfigFile(path, setting) : undefined;
  const warnings: UnknownSetting[] = [];
  const config = resolveConfig({
    env,
    flags,
    ...(file && path ? { file, fileName: `${setting} ${path}` } : {}),
    warn: (w) => warnings.push(w),
  });
  return { config, warnings };
};
