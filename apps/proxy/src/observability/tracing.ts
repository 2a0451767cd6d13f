import type { TurnObserver } from "@proxy/core/gateway";
import type { GatewayConfig } from "../config/config.js";
import { parseOtlpHeaders } from "../config/otlp-headers.js";
import type { Logger } from "./logger.js";
import { SPAN_TEXT_CHARS, writeTurnSpans } from "./turn-spans.js";

/**
 * What the export may hold, whatever requests send: spans wait in a queue of at most
 * `MAX_QUEUED_SPANS` (more are dropped), and each holds a bounded name and at most
 * `MAX_SPAN_ATTRIBUTES` attributes of at most `SPAN_TEXT_CHARS` characters (an array: each of its
 * at most 32 strings). A request writes at most 38 spans; the largest, the request's own, carries
 * under 9 K characters at worst, the others under 1 K, so a collector that never answers keeps at
 * most 2,048 spans of them (under 20 MB at the very worst, about 1 MB for ordinary requests) plus
 * the one batch being sent, given up after `EXPORT_TIMEOUT_MS`.
 */
export const SPAN_LIMITS = {
  attributeValueLengthLimit: SPAN_TEXT_CHARS,
  attributeCountLimit: 32,
  eventCountLimit: 4,
  linkCountLimit: 0,
} as const;
export const MAX_QUEUED_SPANS = 2048;
const EXPORT_BATCH_SPANS = 512;
const EXPORT_TIMEOUT_MS = 10_000;

export interface TurnTracer extends TurnObserver {
  /** Exports what is still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry traces of every request, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. The SDK is
 * imported only then, so a gateway without tracing loads none of it. The resource is built here
 * from the settings (`service.name` from OTEL_SERVICE_NAME, plus OTEL_RESOURCE_ATTRIBUTES): a
 * plain tracer provider would not read them. Spans are written from each turn's summary after the
 * response ended and exported in batches.
 */
export const startTracing = async (
  config: GatewayConfig,
  logger: Logger,
): Promise<TurnTracer | undefined> => {
  if (config.otelEndpoint === "") return undefined;
  const [api, sdk, resources, exporters] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/resources"),
    config.otelProtocol === "http/json"
      ? import("@opentelemetry/exporter-trace-otlp-http")
      : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ "service.name": config.otelServiceName }));
  const exporter = new exporters.OTLPTraceExporter({
    url: `${config.otelEndpoint.replace(/\/+$/, "")}/v1/traces`,
    headers: parseOtlpHeaders(config.otelHeaders),
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const provider = new sdk.TracerProvider({
    resource,
    spanLimits: SPAN_LIMITS,
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter,
        maxQueueSize: MAX_QUEUED_SPANS,
        maxExportBatchSize: EXPORT_BATCH_SPANS,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  const tracer = provider.getTracer("codex-tool-gateway");
  const log = logger.child({ component: "tracing" });
  log.info({ endpoint: config.otelEndpoint, protocol: config.otelProtocol }, "exporting traces");
  return {
    onTurnEnd(summary) {
      try {
        writeTurnSpans(api, tracer, summary, summary.telemetry.route);
      } catch (err) {
        log.warn({ err }, "trace not written");
      }
    },
    shutdown: () => provider.shutdown().catch((err: unknown) => log.warn({ err }, "traces not flushed")),
  };
};
