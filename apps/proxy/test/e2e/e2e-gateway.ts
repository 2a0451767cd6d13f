import {
  makeCodexHome,
  type ProviderScript,
  type RecordedRequest,
  type ScriptedResponse,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { pino } from "pino";
import { resolveConfig } from "../../src/config/config.js";
import { startGateway } from "../../src/gateway.js";

export { lastUserText, toolCallText, transcriptOf } from "../support/scripted-text.js";

/**
 * Real gateway + real codex app-server + scripted model provider, all on loopback. Prompt tool mode
 * unless `env` says otherwise: these scripts write `<tool_call>` text (native.test.ts covers native).
 */
export const startE2E = async (script: ProviderScript, env: Record<string, string> = {}) => {
  const provider = await startScriptedModelProvider(script);
  const home = await makeCodexHome(provider.url);
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const config = resolveConfig({
    env: { LOG_LEVEL: "info", PROXY_TOOL_MODE: "prompt", ...env },
    flags: { port: "0" },
  });
  const gateway = await startGateway(config, { logger, env: { ...process.env, CODEX_HOME: home.path } });
  return {
    provider,
    gateway,
    url: gateway.url,
    logs: lines,
    async close() {
      await gateway.shutdown("test done");
      await provider.close();
      await home.cleanup();
    },
  };
};

export type { RecordedRequest, ScriptedResponse };
