/**
 * The real gateway over the real codex binary behind a scripted model provider (both in this
 * process's care), for `abuse-main.ts`'s codex section. Prints its URL on stdout. A
 * request whose last message says "write a lot" is answered with 1 MB of text (what a long real
 * answer may be), anything else with "ok, done.".
 */
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { resolveConfig, startGateway } from "@proxy/gateway";
import { pino } from "pino";

const LONG = Array.from({ length: 1024 }, (_, i) => `${String(i).padStart(6, "0")} ${"x".repeat(1017)}`);
const provider = await startScriptedModelProvider((request) =>
  JSON.stringify(request.body.input ?? []).includes("write a lot")
    ? { chunks: LONG }
    : { chunks: ["ok, ", "done."] },
);
const home = await makeCodexHome(provider.url);
const config = resolveConfig({
  env: { PROXY_MAX_IN_FLIGHT: "64", PROXY_MAX_QUEUE: "256", PROXY_STORE: "none" },
  flags: { port: "0" },
});
const gateway = await startGateway(config, {
  logger: pino({ level: "silent" }),
  env: { ...process.env, CODEX_HOME: home.path },
});
process.stdout.write(`${gateway.url}\n`);
process.on(
  "SIGTERM",
  () =>
    void gateway
      .shutdown("done")
      .then(() => Promise.all([provider.close(), home.cleanup()]))
      .then(() => process.exit(0)),
);
