/**
 * The real gateway (config, guards, media fetcher, limits) over the core's scripted backend, for
 * `abuse-main.ts`. Prints its URL on stdout. The model name picks the script: `abuse-stop` answers
 * in 300 four-character deltas (a stop-sequence matcher's worst case), anything else says "ok".
 * With the argument `traced`: OpenTelemetry on, exporting to a collector that takes every request
 * and never answers, the access log written (to /dev/null) and usage accounted per key in SQLite.
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedBackend } from "@proxy/core/testing";
import { Backend, resolveConfig, startGateway } from "@proxy/gateway";
import { pino } from "pino";

const traced = process.argv[2] === "traced";
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

const backend = createScriptedBackend(
  (request) =>
    request.model === "abuse-stop"
      ? { chunks: Array.from({ length: 300 }, () => "xxxx") }
      : { chunks: ["ok, ", "done."] },
  { record: false },
);
const config = resolveConfig({
  env: {
    PROXY_IMAGE_FETCH_ALLOW: "127.0.0.1",
    PROXY_MAX_IN_FLIGHT: "256",
    PROXY_MAX_QUEUE: "256",
    ...(traced ? await tracedEnv() : {}),
  },
  flags: { port: "0" },
});
const gateway = await startGateway(config, {
  logger: traced ? pino(pino.destination({ dest: "/dev/null", sync: false })) : pino({ level: "silent" }),
  backendLayer: Backend.layerFrom(backend),
});
process.stdout.write(`${gateway.url}\n`);
process.on("SIGTERM", () => void gateway.shutdown("done").then(() => process.exit(0)));
