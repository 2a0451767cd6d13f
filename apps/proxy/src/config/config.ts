import { OUTPUT_MODES, STOP_AFTER_TOOLS_MODES, TOOL_MODES } from "@proxy/core";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaIssue from "effect/SchemaIssue";
import * as SchemaParser from "effect/SchemaParser";
import { RouteConfig, routeProblem } from "../routing/route-config.js";
import { ApiKeyEntry, apiKeysProblem, resolveApiKeys } from "./api-keys.js";
import { ConfigError } from "./config-error.js";
import { applyLegacySettings } from "./legacy-settings.js";
import { OPTIONS, type OptionSpec } from "./options.js";

const PositiveInt = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1));
const NonNegativeInt = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0));

/** The validated gateway configuration (decoded at startup; a bad value stops startup). */
export const GatewayConfig = Schema.Struct({
  port: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 65535 })),
  host: Schema.String.check(Schema.isMinLength(1)),
  apiKeys: Schema.Array(ApiKeyEntry),
  corsOrigins: Schema.Array(Schema.String),
  allowedHosts: Schema.Array(Schema.String),
  metricsAuth: Schema.Boolean,
  adminKey: Schema.String.check(
    Schema.isPattern(/^(|.{16,})$/, {
      message: "expected at least 16 characters (or empty: no admin endpoints)",
    }),
  ),
  maxConnections: PositiveInt,
  codexBin: Schema.String,
  codexPassEnv: Schema.Array(Schema.String.check(Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/))),
  codexPoolSize: PositiveInt,
  codexWarmThreads: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 8 })),
  codexContinuity: Schema.Boolean,
  codexLiveThreads: PositiveInt,
  codexLiveThreadIdleMs: PositiveInt,
  codexLiveThreadMaxChars: PositiveInt,
  maxInFlight: PositiveInt,
  maxQueue: NonNegativeInt,
  bodyLimitBytes: PositiveInt,
  requestTimeoutMs: NonNegativeInt,
  idleTimeoutMs: NonNegativeInt,
  keepAliveMs: NonNegativeInt,
  writeTimeoutMs: NonNegativeInt,
  maxAnswerChars: NonNegativeInt,
  outputMode: Schema.Literals(OUTPUT_MODES),
  toolMode: Schema.Literals(TOOL_MODES),
  stopAfterTools: Schema.Boolean,
  stopAfterToolsMode: Schema.Literals(STOP_AFTER_TOOLS_MODES),
  toolBlockMax: NonNegativeInt,
  toolBlockMaxBytes: PositiveInt,
  toolBlockDedup: Schema.Boolean,
  parallelToolCalls: Schema.Boolean,
  correctiveRetries: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 5 })),
  modelAliases: Schema.Record(Schema.String, Schema.String),
  imageFetchAllow: Schema.Array(Schema.String),
  imageFetchMaxBytes: PositiveInt,
  imageFetchMaxPerRequest: PositiveInt,
  imageFetchMaxTotalBytes: PositiveInt,
  imageFetchMaxInFlight: PositiveInt,
  imageFetchTimeoutMs: PositiveInt,
  imageFetchMaxRedirects: NonNegativeInt,
  models: Schema.Array(RouteConfig),
  shutdownGraceMs: NonNegativeInt,
  store: Schema.String.check(
    Schema.isPattern(/^(sqlite:.*|memory|none|postgres(ql)?:\/\/.+)$/, {
      message: "expected sqlite:<path>, memory, none or a postgres:// URL",
    }),
  ),
  dataDir: Schema.String.check(Schema.isMinLength(1)),
  storeTtl: Schema.String.check(
    Schema.isPattern(/^[1-9][0-9]*[smhd]?$/, {
      message: "expected a duration such as 30d, 12h, 90m or 3600",
    }),
  ),
  storeMaxResponseBytes: PositiveInt,
  storeMaxConversationBytes: PositiveInt,
  storeLeaseMs: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 1000, maximum: 30_000 })),
  conversationsAutocreate: Schema.Boolean,
  usageRetentionDays: NonNegativeInt,
  otelEndpoint: Schema.String.check(
    Schema.isPattern(/^(|https?:\/\/.+)$/, {
      message: "expected an http:// or https:// URL (or empty: no tracing)",
    }),
  ),
  otelProtocol: Schema.Literals(["http/protobuf", "http/json"]),
  otelServiceName: Schema.String.check(Schema.isMinLength(1)),
  otelHeaders: Schema.String.check(
    Schema.isPattern(/^(|[^=,\s]+=[^,]*(,\s*[^=,\s]+=[^,]*)*)$/, {
      message: "expected name=value pairs separated by commas",
    }),
  ),
  inspector: Schema.Boolean,
  inspectorBodies: Schema.Boolean,
  inspectorMaxRequests: PositiveInt,
  inspectorMaxBytes: Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(65_536)),
  logLevel: Schema.Literals(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  configFile: Schema.String,
});
export type GatewayConfig = typeof GatewayConfig.Type;

export { ConfigError };

const parseJson = (spec: OptionSpec, value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch {
    throw new ConfigError(`${spec.env}: expected JSON, got '${value.slice(0, 80)}'`);
  }
};

const parseRaw = (spec: OptionSpec, raw: string): unknown => {
  const value = raw.trim();
  switch (spec.kind) {
    case "int":
      return value === "" ? Number.NaN : Number(value);
    case "bool":
      if (/^(1|true|yes|on)$/i.test(value)) return true;
      if (/^(0|false|no|off)$/i.test(value)) return false;
      return value;
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
}): GatewayConfig => {
  const merged: Record<string, unknown> = {};
  const origin: Record<string, string> = {};
  const environment = applyLegacySettings(sources.env);
  for (const spec of OPTIONS) {
    merged[spec.key] = parseRaw(spec, spec.default);
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
    const problem = routeProblem(merged.models, sources.env);
    if (problem === undefined) return { ...config, apiKeys: resolveApiKeys(config.apiKeys, sources.env) };
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
  throw new ConfigError(
    `Invalid configuration value for ${where}: ${first?.message ?? "invalid"} (got ${JSON.stringify(merged[key])})`,
  );
};
