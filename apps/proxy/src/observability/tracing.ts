import type { GatewayConfig } from "../config/config.js";
import { parseOtlpHeaders } from "../config/otlp-headers.js";
import type { RequestTurnObserver } from "../http/request-context.js";
import type { Logger } from "./logger.js";
import { writeTurnSpans } from "./turn-spans.js";

export interface TurnTracer extends RequestTurnObserver {
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
  });
  const provider = new sdk.TracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer("codex-tool-gateway");
  const log = logger.child({ component: "tracing" });
  log.info({ endpoint: config.otelEndpoint, protocol: config.otelProtocol }, "exporting traces");
  return {
    onTurnEnd(summary, route) {
      try {
        writeTurnSpans(api, tracer, summary, route);
      } catch (err) {
        log.warn({ err }, "trace not written");
      }
    },
    shutdown: () => provider.shutdown().catch((err: unknown) => log.warn({ err }, "traces not flushed")),
  };
};
