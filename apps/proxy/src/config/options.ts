import { OUTPUT_MODES, STOP_AFTER_TOOLS_MODES, TOOL_MODES } from "@proxy/core";

/**
 * Every gateway option in one table: the env var, the CLI flag, the config-file key, the default
 * and what it does. `docs/configuration.md` and `codex-tool-gateway --help` are generated from / checked against it.
 */
export type OptionKind = "int" | "bool" | "string" | "list" | "map" | "enum" | "json";

export interface OptionSpec {
  readonly key: string;
  readonly env: string;
  readonly flag: string;
  readonly kind: OptionKind;
  readonly default: string;
  readonly values?: ReadonlyArray<string>;
  readonly doc: string;
}

const opt = (
  key: string,
  env: string,
  kind: OptionKind,
  def: string,
  doc: string,
  values?: string[],
): OptionSpec => ({
  key,
  env,
  flag: `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
  kind,
  default: def,
  doc,
  ...(values ? { values } : {}),
});

export const OPTIONS: ReadonlyArray<OptionSpec> = [
  opt("port", "PORT", "int", "8787", "TCP port to listen on."),
  opt(
    "host",
    "HOST",
    "string",
    "127.0.0.1",
    "Address to bind. Non-loopback without API keys logs a loud warning.",
  ),
  opt(
    "apiKeys",
    "PROXY_API_KEYS",
    "list",
    "",
    "Comma-separated API keys clients must send (Bearer token or `x-api-key`). Empty = no auth.",
  ),
  opt(
    "corsOrigins",
    "PROXY_CORS_ORIGINS",
    "list",
    "",
    "Comma-separated browser origins allowed to call the gateway, with CORS (`*` for any). A request with any other `Origin` gets 403; empty = no browser origin.",
  ),
  opt(
    "allowedHosts",
    "PROXY_ALLOWED_HOSTS",
    "list",
    "",
    "Extra `Host` names accepted (e.g. a reverse proxy's public name; `*` for any). Bound to loopback, only loopback names are accepted by default.",
  ),
  opt(
    "metricsAuth",
    "PROXY_METRICS_AUTH",
    "bool",
    "false",
    "Require an API key on `/metrics`, `/readyz` and `/openapi.json` too (`/healthz` stays open).",
  ),
  opt(
    "adminKey",
    "PROXY_ADMIN_KEY",
    "string",
    "",
    "Bearer token for the admin endpoints (`/admin/*`) and the request inspector. Empty = the admin endpoints do not exist.",
  ),
  opt(
    "maxConnections",
    "PROXY_MAX_CONNECTIONS",
    "int",
    "1024",
    "Open client connections at most; further connections are closed at once.",
  ),
  opt("codexBin", "CODEX_BIN", "string", "", "Path to the codex binary. Empty = the pinned @openai/codex."),
  opt(
    "codexPassEnv",
    "PROXY_CODEX_PASS_ENV",
    "list",
    "",
    "Extra environment variables passed to codex (e.g. `HTTPS_PROXY`); codex sees only an allow-list otherwise. The `env_key` of the provider codex's config.toml makes active (or a profile names) passes without it.",
  ),
  opt(
    "codexPoolSize",
    "PROXY_CODEX_POOL_SIZE",
    "int",
    "1",
    "Number of long-lived codex app-server processes.",
  ),
  opt(
    "codexWarmThreads",
    "PROXY_CODEX_WARM_THREADS",
    "int",
    "1",
    "Codex threads started ahead of time per thread config (model, system prompt, tools) and app-server, for the 8 configs used last (from a config's second request on); a request with such a config skips codex's `thread/start`. Each thread serves one request (0 = off).",
  ),
  opt("maxInFlight", "PROXY_MAX_IN_FLIGHT", "int", "16", "Backend turns running at once."),
  opt(
    "maxQueue",
    "PROXY_MAX_QUEUE",
    "int",
    "64",
    "Turns waiting for a slot; beyond it requests get 429 + Retry-After.",
  ),
  opt(
    "bodyLimitBytes",
    "PROXY_BODY_LIMIT_BYTES",
    "int",
    String(8 * 1024 * 1024),
    "Max request body; larger gets 413.",
  ),
  opt("requestTimeoutMs", "PROXY_REQUEST_TIMEOUT_MS", "int", "600000", "Whole-turn deadline (0 = none)."),
  opt(
    "idleTimeoutMs",
    "PROXY_IDLE_TIMEOUT_MS",
    "int",
    "120000",
    "Max silence from the backend mid-turn (0 = none).",
  ),
  opt(
    "keepAliveMs",
    "PROXY_KEEPALIVE_MS",
    "int",
    "15000",
    "SSE keep-alive after this much silence on a stream (`: ping` comment; `event: ping` on /v1/messages) (0 = off).",
  ),
  opt(
    "writeTimeoutMs",
    "PROXY_WRITE_TIMEOUT_MS",
    "int",
    "30000",
    "A streaming client that reads nothing for this long is dropped and its turn stopped (0 = never).",
  ),
  opt(
    "outputMode",
    "PROXY_OUTPUT_MODE",
    "enum",
    "openai-json",
    "Default output mode; `x-proxy-output-mode` overrides per request.",
    [...OUTPUT_MODES],
  ),
  opt(
    "toolMode",
    "PROXY_TOOL_MODE",
    "enum",
    "auto",
    "How tools reach the model: `native` (the backend's own function calling), `prompt` (taught in the prompt, parsed from text), `auto` (native when the backend supports it and the request offers tools). `x-proxy-tool-mode` overrides per request; see docs/tool-modes.md.",
    [...TOOL_MODES],
  ),
  opt(
    "stopAfterTools",
    "PROXY_STOP_AFTER_TOOLS",
    "bool",
    "true",
    "Stop the backend turn and drop text after the last tool call of a burst. Legacy alias `PROXY_SUPPRESS_TAIL_AFTER_TOOLS`.",
  ),
  opt(
    "stopAfterToolsMode",
    "PROXY_STOP_AFTER_TOOLS_MODE",
    "enum",
    "burst",
    "`burst`: stop when text follows the calls; `first`: after the first call.",
    [...STOP_AFTER_TOOLS_MODES],
  ),
  opt("toolBlockMax", "PROXY_TOOL_BLOCK_MAX", "int", "0", "Max tool calls per turn (0 = unlimited)."),
  opt(
    "parallelToolCalls",
    "PROXY_PARALLEL_TOOL_CALLS",
    "bool",
    "true",
    "Default `parallel_tool_calls` for requests that do not set it: `false` allows at most one call per turn. Legacy alias `PROXY_ENABLE_PARALLEL_TOOL_CALLS`.",
  ),
  opt(
    "toolBlockMaxBytes",
    "PROXY_TOOL_BLOCK_MAX_BYTES",
    "int",
    "1048576",
    "Max bytes of one tool block in prompt mode (a larger block is not a call).",
  ),
  opt(
    "toolBlockDedup",
    "PROXY_TOOL_BLOCK_DEDUP",
    "bool",
    "true",
    "Drop a tool block identical to an earlier one in the same turn.",
  ),
  opt(
    "correctiveRetries",
    "PROXY_CORRECTIVE_RETRIES",
    "int",
    "1",
    "Corrective backend turns for strict / tool_choice violations.",
  ),
  opt(
    "modelAliases",
    "PROXY_MODEL_ALIASES",
    "map",
    "",
    "Comma-separated `alias=model` pairs, e.g. `gpt-4o=gpt-5.5`; aliases are listed by /v1/models.",
  ),
  opt(
    "imageFetchAllow",
    "PROXY_IMAGE_FETCH_ALLOW",
    "list",
    "",
    "Comma-separated host names, IPs or CIDRs that remote images may be fetched from although they are not public (loopback, private, link-local, metadata).",
  ),
  opt(
    "imageFetchMaxBytes",
    "PROXY_IMAGE_FETCH_MAX_BYTES",
    "int",
    String(20 * 1024 * 1024),
    "Largest remote image the gateway fetches (http(s) `image_url` / `input_image` are inlined as data URLs).",
  ),
  opt(
    "imageFetchTimeoutMs",
    "PROXY_IMAGE_FETCH_TIMEOUT_MS",
    "int",
    "10000",
    "Deadline for fetching one remote image, redirects included.",
  ),
  opt(
    "imageFetchMaxRedirects",
    "PROXY_IMAGE_FETCH_MAX_REDIRECTS",
    "int",
    "3",
    "Redirects followed per remote image.",
  ),
  opt(
    "models",
    "PROXY_MODELS",
    "json",
    "[]",
    "Model routes as a JSON list of `{id, backend, baseUrl, …}` (see docs/backends.md). Empty = every model goes to codex.",
  ),
  opt(
    "shutdownGraceMs",
    "PROXY_SHUTDOWN_GRACE_MS",
    "int",
    "10000",
    "On SIGTERM/SIGINT/SIGHUP, how long in-flight streams may finish.",
  ),
  opt(
    "store",
    "PROXY_STORE",
    "string",
    "sqlite:",
    "Where stored responses and conversations live: `sqlite:<path>` (`sqlite:` = `$PROXY_DATA_DIR/gateway.sqlite`), `memory`, `none` (stateless), or a `postgres://` URL. See docs/state.md.",
  ),
  opt("dataDir", "PROXY_DATA_DIR", "string", "./data", "Directory of the default SQLite store."),
  opt(
    "storeTtl",
    "PROXY_STORE_TTL",
    "string",
    "30d",
    "How long stored responses and conversations are kept: seconds, or a number with `s`, `m`, `h` or `d`.",
  ),
  opt(
    "storeMaxResponseBytes",
    "PROXY_STORE_MAX_RESPONSE_BYTES",
    "int",
    String(16 * 1024 * 1024),
    "A larger response (with its stream events) is answered but not stored (`x-proxy-store-warning` header).",
  ),
  opt(
    "storeLeaseMs",
    "PROXY_STORE_LEASE_MS",
    "int",
    "30000",
    "Lease of a running background turn (1000–30000), renewed by its process; when the process dies, any replica fails the turn once the lease runs out.",
  ),
  opt(
    "conversationsAutocreate",
    "PROXY_CONVERSATIONS_AUTOCREATE",
    "bool",
    "false",
    "`conversation` naming an unknown id creates that conversation instead of answering 404.",
  ),
  opt("logLevel", "LOG_LEVEL", "enum", "info", "pino log level.", [
    "fatal",
    "error",
    "warn",
    "info",
    "debug",
    "trace",
    "silent",
  ]),
  opt(
    "configFile",
    "PROXY_CONFIG_FILE",
    "string",
    "",
    "Optional JSON config file (keys as in this table); env and flags override it.",
  ),
];
