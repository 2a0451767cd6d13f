import {
  type RecordedUpstreamRequest,
  startScriptedUpstream,
  type UpstreamScript,
  type UpstreamTurn,
} from "@proxy/adapter-openai-compatible/testing";
import { pino } from "pino";
import { resolveConfig } from "../../src/config/config.js";
import { startGateway } from "../../src/gateway.js";

/** The text of the last user message the gateway sent upstream (the turn's input). */
export const lastUpstreamUserText = (request: RecordedUpstreamRequest): string => {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = messages.filter((m) => m.role === "user").at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
};

/** Everything the gateway sent upstream as one string (instructions, history, input). */
export const upstreamTranscript = (request: RecordedUpstreamRequest): string =>
  JSON.stringify(request.body.messages ?? []).replaceAll('\\"', '"');

/**
 * A real gateway whose `models` routes point at scripted OpenAI-compatible servers (no codex):
 * `routes(urls)` builds the routes from the servers' base URLs.
 */
export const startUpstreamGateway = async (
  scripts: ReadonlyArray<UpstreamScript>,
  routes: (urls: ReadonlyArray<string>) => ReadonlyArray<Record<string, unknown>>,
  env: Record<string, string> = {},
) => {
  const upstreams = await Promise.all(scripts.map((s) => startScriptedUpstream(s)));
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const allEnv = { PROXY_MODELS: JSON.stringify(routes(upstreams.map((u) => u.url))), ...env };
  const config = resolveConfig({ env: allEnv, flags: { port: "0" } });
  const gateway = await startGateway(config, { logger, env: allEnv });
  return {
    upstreams,
    gateway,
    url: gateway.url,
    logs: lines,
    async close() {
      await gateway.shutdown("test done");
      await Promise.all(upstreams.map((u) => u.close()));
    },
  };
};

export type { RecordedUpstreamRequest, UpstreamTurn };
