import { RouteConfig } from "@proxy/routing";
import * as Schema from "effect/Schema";
import { IntBetween, NonNegativeInt, option, PositiveInt } from "./option.js";
import { parseOtlpHeaders } from "./otlp-headers.js";

/**
 * The options of remote images, model routes, shutdown, the store, usage, tracing, the inspector
 * and the log: one declaration each (see option.ts), after SERVING_OPTIONS in `--help` and the doc.
 */
export const RESOURCE_OPTIONS = {
  imageFetchAllow: option({
    env: "PROXY_IMAGE_FETCH_ALLOW",
    kind: "list",
    schema: Schema.Array(Schema.String),
    default: [],
    doc: "Comma-separated host names, IPs or CIDRs that remote images may be fetched from although they are not public (loopback, private, link-local, metadata).",
  }),
  imageFetchMaxBytes: option({
    env: "PROXY_IMAGE_FETCH_MAX_BYTES",
    kind: "int",
    schema: PositiveInt,
    default: 20 * 1024 * 1024,
    doc: "Largest remote image the gateway fetches (http(s) `image_url` / `input_image` are inlined as data URLs).",
  }),
  imageFetchMaxPerRequest: option({
    env: "PROXY_IMAGE_FETCH_MAX_PER_REQUEST",
    kind: "int",
    schema: PositiveInt,
    default: 20,
    doc: "Remote images one request may hold (a URL given several times is fetched once but counts each time); more is a 400.",
  }),
  imageFetchMaxTotalBytes: option({
    env: "PROXY_IMAGE_FETCH_MAX_TOTAL_BYTES",
    kind: "int",
    schema: PositiveInt,
    default: 32 * 1024 * 1024,
    doc: "Bytes of one request's remote images together (each place counts); more is a 400.",
  }),
  imageFetchMaxInFlight: option({
    env: "PROXY_IMAGE_FETCH_MAX_IN_FLIGHT",
    kind: "int",
    schema: PositiveInt,
    default: 8,
    doc: "Remote image fetches running at once in the process; more wait for a slot within their deadline.",
  }),
  imageFetchTimeoutMs: option({
    env: "PROXY_IMAGE_FETCH_TIMEOUT_MS",
    kind: "int",
    schema: PositiveInt,
    default: 10000,
    doc: "Deadline for fetching one remote image, redirects included.",
  }),
  imageFetchMaxRedirects: option({
    env: "PROXY_IMAGE_FETCH_MAX_REDIRECTS",
    kind: "int",
    schema: NonNegativeInt,
    default: 3,
    doc: "Redirects followed per remote image.",
  }),
  models: option({
    env: "PROXY_MODELS",
    kind: "json",
    schema: Schema.Array(RouteConfig),
    default: [],
    doc: "Model routes as a JSON list of `{id, backend, baseUrl, …}` (see docs/backends.md). Empty = every model goes to codex.",
  }),
  shutdownGraceMs: option({
    env: "PROXY_SHUTDOWN_GRACE_MS",
    kind: "int",
    schema: NonNegativeInt,
    default: 10000,
    doc: "On SIGTERM/SIGINT/SIGHUP, how long in-flight streams may finish.",
  }),
  store: option({
    env: "PROXY_STORE",
    kind: "string",
    schema: Schema.String.check(
      Schema.isPattern(/^(sqlite:.*|memory|none|postgres(ql)?:\/\/.+)$/, {
        message: "expected sqlite:<path>, memory, none or a postgres:// URL",
      }),
    ),
    default: "sqlite:",
    doc: "Where stored responses and conversations live: `sqlite:<path>` (`sqlite:` = `$PROXY_DATA_DIR/gateway.sqlite`), `memory`, `none` (stateless), or a `postgres://` URL. See docs/state.md.",
  }),
  dataDir: option({
    env: "PROXY_DATA_DIR",
    kind: "string",
    schema: Schema.String.check(Schema.isMinLength(1)),
    default: "./data",
    doc: "Directory of the default SQLite store.",
  }),
  storeTtl: option({
    env: "PROXY_STORE_TTL",
    kind: "string",
    schema: Schema.String.check(
      Schema.isPattern(/^[1-9][0-9]*[smhd]?$/, {
        message: "expected a duration such as 30d, 12h, 90m or 3600",
      }),
    ),
    default: "30d",
    doc: "How long stored responses and conversations are kept: seconds, or a number with `s`, `m`, `h` or `d`.",
  }),
  storeMaxResponseBytes: option({
    env: "PROXY_STORE_MAX_RESPONSE_BYTES",
    kind: "int",
    schema: PositiveInt,
    default: 16 * 1024 * 1024,
    doc: "A larger response (its input, output and stream events) is answered but not stored (`x-proxy-store-warning` header); a background response that grows past it is stopped and stored as failed (`response_too_large`).",
  }),
  storeMaxConversationBytes: option({
    env: "PROXY_STORE_MAX_CONVERSATION_BYTES",
    kind: "int",
    schema: PositiveInt,
    default: 64 * 1024 * 1024,
    doc: "The most a stored conversation's items may take (JSON characters); an append past it is refused (`conversation_too_large`: a 413 on `POST /v1/conversations/{id}/items`, the `x-proxy-store-warning` header on a turn).",
  }),
  storeLeaseMs: option({
    env: "PROXY_STORE_LEASE_MS",
    kind: "int",
    schema: IntBetween(1000, 30_000),
    default: 30000,
    doc: "Lease of a running background turn (1000–30000), renewed by its process; when the process dies, any replica fails the turn once the lease runs out.",
  }),
  conversationsAutocreate: option({
    env: "PROXY_CONVERSATIONS_AUTOCREATE",
    kind: "bool",
    schema: Schema.Boolean,
    default: false,
    doc: "`conversation` naming an unknown id creates that conversation instead of answering 404.",
  }),
  usageRetentionDays: option({
    env: "PROXY_USAGE_RETENTION_DAYS",
    kind: "int",
    schema: NonNegativeInt,
    default: 400,
    doc: "Per-key usage rows (`/admin/usage`) of UTC days more than this many days ago are deleted, hourly and at start (0 = kept forever).",
  }),
  otelEndpoint: option({
    env: "OTEL_EXPORTER_OTLP_ENDPOINT",
    kind: "string",
    schema: Schema.String.check(
      Schema.isPattern(/^(|https?:\/\/.+)$/, {
        message: "expected an http:// or https:// URL (or empty: no tracing)",
      }),
    ),
    default: "",
    doc: "OTLP/HTTP collector base URL (traces go to `<url>/v1/traces`): each request becomes a trace with GenAI attributes. Empty = no tracing (the OpenTelemetry SDK is not even loaded).",
  }),
  otelProtocol: option({
    env: "OTEL_EXPORTER_OTLP_PROTOCOL",
    kind: "enum",
    schema: Schema.Literals(["http/protobuf", "http/json"]),
    default: "http/protobuf",
    doc: "How traces are sent to the collector.",
  }),
  otelServiceName: option({
    env: "OTEL_SERVICE_NAME",
    kind: "string",
    schema: Schema.String.check(Schema.isMinLength(1)),
    default: "codex-tool-gateway",
    doc: "`service.name` of the traces.",
  }),
  otelHeaders: option({
    env: "OTEL_EXPORTER_OTLP_HEADERS",
    kind: "string",
    schema: Schema.String.check(
      Schema.isPattern(/^(|[^=,\s]+=[^,]*(,\s*[^=,\s]+=[^,]*)*)$/, {
        message: "expected name=value pairs separated by commas",
      }),
      Schema.makeFilter((value: string) => {
        try {
          parseOtlpHeaders(value);
          return true;
        } catch {
          return "a value is not URL-encoded correctly (write a literal % as %25, a space as %20)";
        }
      }),
    ),
    default: "",
    secret: true,
    doc: "Headers sent to the collector, as comma-separated `name=value` pairs (values URL-encoded), e.g. `authorization=Bearer%20abc`.",
  }),
  inspector: option({
    env: "PROXY_INSPECTOR",
    kind: "bool",
    schema: Schema.Boolean,
    default: false,
    doc: "Serve the request inspector at `/ui` and record recent requests in memory. With API keys it needs `PROXY_ADMIN_KEY`, and only that key opens it.",
  }),
  inspectorBodies: option({
    env: "PROXY_INSPECTOR_BODIES",
    kind: "bool",
    schema: Schema.Boolean,
    default: true,
    doc: "The inspector keeps prompts, model text and tool arguments (off: timings, counts and the parser's decisions only).",
  }),
  inspectorMaxRequests: option({
    env: "PROXY_INSPECTOR_MAX_REQUESTS",
    kind: "int",
    schema: PositiveInt,
    default: 200,
    doc: "Requests the inspector keeps in memory; the oldest go first.",
  }),
  inspectorMaxBytes: option({
    env: "PROXY_INSPECTOR_MAX_BYTES",
    kind: "int",
    schema: Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(65_536)),
    default: 16 * 1024 * 1024,
    doc: "Bytes the inspector's records keep in memory, every field counted (one request's text at most a quarter); the oldest requests go first.",
  }),
  logLevel: option({
    env: "LOG_LEVEL",
    kind: "enum",
    schema: Schema.Literals(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
    default: "info",
    doc: "pino log level.",
  }),
  configFile: option({
    env: "PROXY_CONFIG_FILE",
    kind: "string",
    schema: Schema.String,
    default: "",
    doc: "Optional JSON config file (keys as in this table); env and flags override it.",
  }),
};
