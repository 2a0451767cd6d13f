/**
 * The real gateway (config, guards, media fetcher, limits) over the core's scripted backend, for
 * `abuse-main.ts`. Prints its URL on stdout. The model name picks the script: `abuse-stop` answers
 * in 300 four-character deltas (a stop-sequence matcher's worst case), anything else says "ok".
 * With the argument `traced`: OpenTelemetry on, exporting to a collector that takes every request
 * and never answers, the access log written (to /dev/null) and usage accounted per key in SQLite.
 * With `inspector`: the request inspector on, 500 API keys configured (`sk-abuse-0123456789` first);
 * a prompt starting "fail" is refused by an error quoting it whole.
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayError } from "@proxy/core";
import { createScriptedBackend } from "@proxy/core/testing";
import { Backend, resolveConfig, startGateway } from "@proxy/gateway";
import { pino } from "pino";

const traced = process.argv[2] === "traced";
/** The inspector on, with 500 configured keys (the abuse key first): what it records and redacts. */
const inspector = process.argv[2] === "inspector";
const inspectorEnv = (): Record<string, string> => ({
  PROXY_INSPECTOR: "on",
  PROXY_API_KEYS: [
    "sk-abuse-0123456789",
    ...Array.from(
      { length: 499 },
      (_, i) => `sk-${String(i).padStart(4, "0")}-${Math.random().toString(36).slice(2, 14)}`,
    ),
  ].join(","),
  PROXY_ADMIN_KEY: "admin-abuse-0123456789",
});
/** A collector that reads each export and never answers it. */
const silentCollector = async () => {
  const server = createServer((req) => req.resume());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const tracedEnv = async (): Promise<Record<string, string>> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: await silentCollector(),
  PROXY_STORE: `sqlite:${join(mkdtempSync(join(tmpdir(), "abuse-usage-")), "gateway.sqlite")}`,
  PROXY_API_KEYS: JSON.stringify([{ name: "abuser", key: "sk-abuse-0123456789" }]),
  PROXY_ADMIN_KEY: "admin-abuse-0123456789",
});

const inputOf = (request: { input: ReadonlyArray<{ type: string; text?: string }> }) =>
  request.input.map((p) => p.text ?? "").join("");
const backend = createScriptedBackend(
  (request) => {
    if (request.model === "abuse-stop") return { chunks: Array.from({ length: 300 }, () => "xxxx") };
    // A provider that refuses by quoting the prompt whole (as upstream 400s do).
    const input = inputOf(request);
    if (input.startsWith("fail"))
      return { chunks: [], startError: new GatewayError("backend_error", `The provider refused: ${input}`) };
    return { chunks: ["ok, ", "done."] };
  },
  { record: false },
);
const config = resolveConfig({
  env: {
    PROXY_IMAGE_FETCH_ALLOW: "127.0.0.1",
    PROXY_MAX_IN_FLIGHT: "256",
    PROXY_MAX_QUEUE: "256",
    ...(traced ? await tracedEnv() : {}),
    ...(inspector ? inspectorEnv() : {}),
  },
  flags: { port: "0" },
});
const gateway = await startGateway(config, {
  logger: traced ? pino(pino.destination({ dest: "/dev/null", sync: false })) : pino({ level: "silent" }),
  backendLayer: Backend.layerFrom(backend),
});
process.stdout.write(`${gateway.url}\n`);
process.on("SIGTERM", () => void gateway.shutdown("done").then(() => process.exit(0)));
