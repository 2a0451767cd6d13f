/**
 * The real gateway (config, guards, media fetcher, limits) over the core's scripted backend, for
 * `abuse-main.ts`. Prints its URL on stdout. The model name picks the script: `abuse-stop` answers
 * in 300 four-character deltas (a stop-sequence matcher's worst case), anything else says "ok".
 */
import { createScriptedBackend } from "@proxy/core/testing";
import { Backend, resolveConfig, startGateway } from "@proxy/gateway";
import { pino } from "pino";

const backend = createScriptedBackend(
  (request) =>
    request.model === "abuse-stop"
      ? { chunks: Array.from({ length: 300 }, () => "xxxx") }
      : { chunks: ["ok, ", "done."] },
  { record: false },
);
const config = resolveConfig({
  env: { PROXY_IMAGE_FETCH_ALLOW: "127.0.0.1", PROXY_MAX_IN_FLIGHT: "256", PROXY_MAX_QUEUE: "256" },
  flags: { port: "0" },
});
const gateway = await startGateway(config, {
  logger: pino({ level: "silent" }),
  backendLayer: Backend.layerFrom(backend),
});
process.stdout.write(`${gateway.url}\n`);
process.on("SIGTERM", () => void gateway.shutdown("done").then(() => process.exit(0)));
