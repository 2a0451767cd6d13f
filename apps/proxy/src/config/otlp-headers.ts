/**
 * `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, values URL-encoded (the OTLP spec's format).
 * Throws a URIError on a value that is not URL-encoded correctly (the configuration refuses it first).
 */
export const parseOtlpHeaders = (raw: string): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const pair of raw.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
};
