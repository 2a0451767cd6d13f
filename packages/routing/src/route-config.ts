import { OUTPUT_MODES, type OutputMode } from "@proxy/core/gateway";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaIssue from "effect/SchemaIssue";
import * as SchemaParser from "effect/SchemaParser";

const Id = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200));
const PositiveInt = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1));
const HttpUrl = Schema.String.check(
  Schema.isPattern(/^https?:\/\/[^\s/]+/i, { message: "must be an http:// or https:// URL" }),
);
const EnvName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be an environment variable name" }),
);

/** Fields every route has, whatever serves it. */
const common = {
  /** The model name clients send. */
  id: Id,
  /** More names for the same route, listed by `/v1/models`. */
  aliases: Schema.optional(Schema.Array(Id)),
  /** The model the backend is asked for (default: `id`). */
  upstreamModel: Schema.optional(Id),
  /** Used when the client sends no reasoning effort (so `gpt-5.5-high` can be a route). */
  reasoningEffort: Schema.optional(Schema.Literals(["none", "minimal", "low", "medium", "high", "xhigh"])),
  /** How tool calls are written for this route's requests unless `x-proxy-output-mode` says otherwise. */
  outputMode: Schema.optional(Schema.Literals(OUTPUT_MODES)),
  /** Turns of this route running at once; more wait in the route's queue. */
  maxInFlight: Schema.optional(PositiveInt),
  /**
   * Model names (ids or aliases of other routes) that take the request, in order, when this route
   * is rate limited, unavailable, full or too slow before anything was sent to the client.
   */
  fallbacks: Schema.optional(Schema.Array(Id)),
  /** With fallbacks: how long this route may take to start answering before the next one is tried. */
  firstByteTimeoutMs: Schema.optional(PositiveInt),
  /** `false`: the model takes no images, so requests carrying images skip it as a fallback. */
  images: Schema.optional(Schema.Boolean),
};

export const CodexRoute = Schema.Struct({
  ...common,
  backend: Schema.Literal("codex"),
  /** `prompt`: always teach tools in the prompt; `auto`: as codex and PROXY_TOOL_MODE decide. */
  toolMode: Schema.optional(Schema.Literals(["auto", "prompt"])),
});

export const OpenAICompatibleRoute = Schema.Struct({
  ...common,
  backend: Schema.Literal("openai-compatible"),
  /** The server's OpenAI base URL, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: HttpUrl,
  /** Name of the environment variable holding the upstream's API key (none: no key sent). */
  apiKeyEnv: Schema.optional(EnvName),
  /**
   * `native`: `tools`/`tool_choice` go to the server as they are and its `tool_calls` come back
   * (for servers that do tools well); `prompt` and `auto` (the default): tools taught in the prompt.
   */
  toolMode: Schema.optional(Schema.Literals(["auto", "prompt", "native"])),
  /** Send a stable per-conversation `prompt_cache_key` (for servers that take it; see docs/backends.md). */
  promptCacheKey: Schema.optional(Schema.Boolean),
});

/** One entry of the `models` list: a model name clients can ask for, and what serves it. */
export const RouteConfig = Schema.Union([CodexRoute, OpenAICompatibleRoute]);
export type RouteConfig = typeof RouteConfig.Type;

/** What a model's route sets for its requests (the kit's `RouteSettings`; a request's headers still win). */
export interface RouteTurnSettings {
  readonly outputMode: OutputMode;
}

/** Each model name's route settings (ids and aliases), for the surfaces' turn sessions. */
export const routeSettingsOf = (
  routes: ReadonlyArray<RouteConfig>,
): ((model: string) => RouteTurnSettings | undefined) => {
  const byName = new Map<string, RouteTurnSettings>();
  for (const route of routes)
    if (route.outputMode !== undefined)
      for (const name of [route.id, ...(route.aliases ?? [])])
        byName.set(name, { outputMode: route.outputMode });
  return (model) => byName.get(model);
};

const BACKENDS: ReadonlyArray<string> = ["codex", "openai-compatible"];

const decodeStrict = SchemaParser.decodeUnknownResult(Schema.Array(RouteConfig));
const formatter = SchemaIssue.makeFormatterStandardSchemaV1();

const pathOf = (path: ReadonlyArray<unknown> | undefined): string =>
  (path ?? [])
    .map((p) => (typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p))
    .map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`))
    .join("");

/**
 * What the schema cannot say about a `models` list: unknown keys (a typo like `baseURL`), names
 * used twice, and API keys that are not in the environment. Returns the first problem, naming
 * the offending entry (`models[1].apiKeyEnv`), or undefined.
 */
export const routeProblem = (
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined => {
  // The union's own message lists both shapes; say what is wrong instead.
  const badBackend = Array.isArray(raw)
    ? raw.findIndex((r) => !BACKENDS.includes((r as { backend?: unknown } | null)?.backend as string))
    : -1;
  if (badBackend !== -1)
    return `models[${badBackend}].backend: must be one of ${BACKENDS.map((b) => `"${b}"`).join(", ")}`;
  const strict = decodeStrict(raw, { onExcessProperty: "error" });
  if (!Result.isSuccess(strict)) {
    const issue = formatter(strict.failure).issues[0];
    return `models${pathOf(issue?.path)}: ${issue?.message ?? "invalid"}`;
  }
  const seen = new Map<string, string>();
  const owner = new Map<string, number>();
  for (const [i, route] of strict.success.entries()) {
    for (const [j, name] of [route.id, ...(route.aliases ?? [])].entries()) {
      const where = j === 0 ? `models[${i}].id` : `models[${i}].aliases[${j - 1}]`;
      const earlier = seen.get(name);
      if (earlier) return `${where}: the model name '${name}' is already used by ${earlier}`;
      seen.set(name, where);
      owner.set(name, i);
    }
    if (route.backend === "openai-compatible" && route.apiKeyEnv && !env[route.apiKeyEnv])
      return `models[${i}].apiKeyEnv: the environment variable ${route.apiKeyEnv} is not set`;
  }
  for (const [i, route] of strict.success.entries())
    for (const [j, name] of (route.fallbacks ?? []).entries()) {
      const target = owner.get(name);
      if (target === undefined) return `models[${i}].fallbacks[${j}]: no route is named '${name}'`;
      if (target === i) return `models[${i}].fallbacks[${j}]: '${name}' is this route itself`;
    }
  return undefined;
};
