import { DEFAULT_TURN_SETTINGS, type TurnSettings } from "@proxy/core/gateway";
import { routeProblem } from "@proxy/routing";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaIssue from "effect/SchemaIssue";
import * as SchemaParser from "effect/SchemaParser";
import { apiKeysProblem, resolveApiKeys } from "./api-keys.js";
import { closestName } from "./closest-name.js";
import { ConfigError } from "./config-error.js";
import { applyLegacySettings, LEGACY_ALIASES, RETIRED_SETTINGS } from "./legacy-settings.js";
import { type DECLARED_OPTIONS, OPTIONS, type OptionKey, type OptionSpec } from "./options.js";

type Schemas = { readonly [K in OptionKey]: (typeof DECLARED_OPTIONS)[K]["schema"] };

/** The validated gateway configuration (decoded at startup; a bad value stops startup): each option's schema. */
export const GatewayConfig = Schema.Struct(
  Object.fromEntries(OPTIONS.map((o) => [o.key, o.schema])) as unknown as Schemas,
);
export type GatewayConfig = typeof GatewayConfig.Type;

export { ConfigError };

/** How a boolean may be written in the environment or a flag (any case); the config file takes JSON's. */
export const BOOLEAN_SPELLINGS: Readonly<Record<"true" | "false", ReadonlyArray<string>>> = {
  true: ["true", "1", "yes", "on"],
  false: ["false", "0", "no", "off"],
};

const parseJson = (spec: OptionSpec, value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch {
    throw new ConfigError(`${spec.env}: expected JSON${spec.secret ? "" : `, got '${value.slice(0, 80)}'`}`);
  }
};

const parseRaw = (spec: OptionSpec, raw: string): unknown => {
  const value = raw.trim();
  switch (spec.kind) {
    case "int":
      return value === "" ? Number.NaN : Number(value);
    case "bool": {
      const lower = value.toLowerCase();
      if (BOOLEAN_SPELLINGS.true.includes(lower)) return true;
      if (BOOLEAN_SPELLINGS.false.includes(lower)) return false;
      return value;
    }
    case "list":
      // A JSON list is taken as it is (named keys with limits in PROXY_API_KEYS).
      if (value.startsWith("[")) return parseJson(spec, value);
      return value === ""
        ? []
        : value
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== "");
    case "map": {
      const out: Record<string, string> = {};
      for (const pair of value
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")) {
        const [k, v] = pair.split("=").map((s) => s.trim());
        if (!k || !v) throw new ConfigError(`${spec.env}: expected alias=model pairs, got '${pair}'`);
        out[k] = v;
      }
      return out;
    }
    case "json":
      return parseJson(spec, value);
    default:
      return value;
  }
};

/** The option a mistyped name (a config-file key, an env var, a flag) most likely meant. */
export const optionMeant = (name: string): OptionSpec | undefined =>
  closestName(name, OPTIONS, (o) => [o.key, o.env]);

/** A config file's key that is no option stops startup, as an unknown flag does. */
const refuseUnknownKeys = (file: Readonly<Record<string, unknown>>, fileName: string) => {
  for (const key of Object.keys(file)) {
    if (OPTIONS.some((o) => o.key === key)) continue;
    const meant = optionMeant(key);
    throw new ConfigError(
      `${fileName}: unknown key '${key}'${meant ? ` (did you mean '${meant.key}'?)` : ""}; the keys are listed in docs/configuration.md and by --help.`,
    );
  }
};

/** A `PROXY_*` variable the gateway does not read, and the setting it most likely meant. */
export interface UnknownSetting {
  readonly name: string;
  readonly meant?: string | undefined;
  readonly message: string;
}

/**
 * `PROXY_*` variables that are no setting: most likely a typo, warned about at start (not refused: an
 * environment is shared with other programs). Variables the configuration names itself (a key's
 * `keyEnv`, a route's `apiKeyEnv`, `PROXY_CODEX_PASS_ENV`) are read, so they are not unknown.
 */
const unknownSettings = (
  env: Readonly<Record<string, string | undefined>>,
  merged: Readonly<Record<string, unknown>>,
): UnknownSetting[] => {
  const named = (list: unknown, field: string) =>
    (Array.isArray(list) ? list : []).map((e) => (e as Record<string, unknown> | null)?.[field]);
  const read = new Set<unknown>([
    ...OPTIONS.map((o) => o.env),
    ...Object.keys(LEGACY_ALIASES),
    ...Object.keys(RETIRED_SETTINGS),
    ...named(merged.apiKeys, "keyEnv"),
    ...named(merged.models, "apiKeyEnv"),
    ...(Array.isArray(merged.codexPassEnv) ? merged.codexPassEnv : []),
  ]);
  return Object.keys(env)
    .filter((name) => name.startsWith("PROXY_") && env[name] !== undefined && !read.has(name))
    .sort()
    .map((name) => {
      const meant = optionMeant(name)?.env;
      return {
        name,
        meant,
        message: `${name} is not a setting of the gateway and is ignored${meant ? `: did you mean ${meant}?` : " (codex-tool-gateway --help lists the settings)"}`,
      };
    });
};

const decode = SchemaParser.decodeUnknownResult(GatewayConfig);
const formatter = SchemaIssue.makeFormatterStandardSchemaV1();

/**
 * Merges defaults ← config file ← environment ← CLI flags and validates the result. Errors name
 * the option the way the operator set it (env var or flag) and say what was expected. Settings of
 * the earlier codex proxies are honoured as aliases or refused (see legacy-settings.ts).
 */
export const resolveConfig = (sources: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly flags?: Readonly<Record<string, string>>;
  readonly file?: Readonly<Record<string, unknown>>;
  /** How errors name the config file (its path). */
  readonly fileName?: string;
  /** Told of each `PROXY_*` variable that is no setting (logged at start). */
  readonly warn?: (unknown: UnknownSetting) => void;
}): GatewayConfig => {
  if (sources.file) refuseUnknownKeys(sources.file, sources.fileName ?? "the config file");
  const merged: Record<string, unknown> = {};
  const origin: Record<string, string> = {};
  const environment = applyLegacySettings(sources.env);
  for (const spec of OPTIONS) {
    merged[spec.key] = spec.default;
    if (sources.file && spec.key in sources.file) {
      merged[spec.key] = sources.file[spec.key];
      origin[spec.key] = `config file key '${spec.key}'`;
    }
    const env = environment[spec.env];
    if (env !== undefined && env !== "") {
      merged[spec.key] = parseRaw(spec, env);
      origin[spec.key] = spec.env;
    }
    const flag = sources.flags?.[spec.key];
    if (flag !== undefined) {
      merged[spec.key] = parseRaw(spec, flag);
      origin[spec.key] = spec.flag;
    }
  }
  const result = decode(merged);
  if (Result.isSuccess(result)) {
    const config = result.success;
    const keys = apiKeysProblem(merged.apiKeys, sources.env);
    if (keys !== undefined)
      throw new ConfigError(`Invalid configuration value for ${origin.apiKeys ?? "apiKeys"}: ${keys}`);
    if (config.inspector && config.apiKeys.length > 0 && config.adminKey === "")
      throw new ConfigError(
        `${origin.inspector ?? "PROXY_INSPECTOR"}: the gateway has API keys, so the inspector needs PROXY_ADMIN_KEY (only the admin key opens it).`,
      );
    const replicas = replicaProblem(config, origin);
    if (replicas !== undefined) throw new ConfigError(replicas);
    const problem = routeProblem(merged.models, sources.env);
    if (problem === undefined) {
      for (const unknown of unknownSettings(sources.env, merged)) sources.warn?.(unknown);
      return { ...config, apiKeys: resolveApiKeys(config.apiKeys, sources.env) };
    }
    throw new ConfigError(`Invalid configuration value for ${origin.models ?? "models"}: ${problem}`);
  }
  const first = formatter(result.failure).issues[0];
  const key = String((first?.path?.[0] as { key?: unknown } | undefined)?.key ?? first?.path?.[0] ?? "");
  const spec = OPTIONS.find((o) => o.key === key);
  const where = origin[key] ?? (spec ? `${spec.env} (default)` : key);
  // A route list error names the entry and field (`models[1].baseUrl`), not just the option.
  const routes = key === "models" ? routeProblem(merged.models, sources.env) : undefined;
  if (routes) throw new ConfigError(`Invalid configuration value for ${where}: ${routes}`);
  const keys = key === "apiKeys" ? apiKeysProblem(merged.apiKeys, sources.env) : undefined;
  if (keys) throw new ConfigError(`Invalid configuration value for ${where}: ${keys}`);
  // A secret is never repeated (error output lands in logs).
  const got = spec?.secret ? "" : ` (got ${JSON.stringify(merged[key])})`;
  throw new ConfigError(`Invalid configuration value for ${where}: ${first?.message ?? "invalid"}${got}`);
};

/** Replica settings that only make sense together: one line naming what is missing. */
const replicaProblem = (
  config: GatewayConfig,
  origin: Readonly<Record<string, string>>,
): string | undefined => {
  const url = origin.replicaUrl ?? "PROXY_REPLICA_URL";
  if (config.replicaSecret !== "" && config.replicaUrl === "")
    return `${origin.replicaSecret ?? "PROXY_REPLICA_SECRET"} is set but PROXY_REPLICA_URL is not: set it to how the other replicas reach this one (e.g. http://10.0.0.5:8000).`;
  if (config.replicaUrl === "") return undefined;
  if (config.replicaSecret === "")
    return `${url} is set but PROXY_REPLICA_SECRET is not: set the same secret (16 characters or more) on every replica.`;
  if (!/^postgres(ql)?:\/\//.test(config.store))
    return `${url} needs the store the replicas share: PROXY_STORE=postgres://… (not ${config.store}).`;
  return undefined;
};

/** Core's turn settings: its defaults, with every option that declares a `turn` setting applied. */
export const turnSettingsFrom = (config: GatewayConfig): TurnSettings => {
  const settings: Record<string, unknown> = { ...DEFAULT_TURN_SETTINGS };
  for (const o of OPTIONS) if (o.turn !== undefined) settings[o.turn] = config[o.key];
  return settings as unknown as TurnSettings;
};
