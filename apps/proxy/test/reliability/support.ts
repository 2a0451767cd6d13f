import type { createCodexBackend } from "@proxy/adapter-codex-appserver";
import {
  type CodexHome,
  makeCodexHome,
  type ProviderScript,
  type ScriptedModelProvider,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import type { TextBackend } from "@proxy/core/gateway";
import { pino } from "pino";
import { resolveConfig } from "../../src/config/config.js";
import { type RunningGateway, startGateway } from "../../src/gateway.js";
import { Backend } from "../../src/runtime.js";

export interface ReliabilityGateway {
  readonly gateway: RunningGateway;
  readonly url: string;
  readonly logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

const capture = () => {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (l: string) => void logs.push(JSON.parse(l)) });
  return { logs, logger };
};

/** The real gateway (config from `env`, server guards included) over any TextBackend. */
export const gatewayOver = async (
  backend: TextBackend,
  env: Record<string, string> = {},
): Promise<ReliabilityGateway> => {
  const { logs, logger } = capture();
  const config = resolveConfig({ env: { LOG_LEVEL: "info", ...env }, flags: { port: "0" } });
  const gateway = await startGateway(config, { logger, backendLayer: Backend.layerFrom(backend) });
  return { gateway, url: gateway.url, logs, close: () => gateway.shutdown("test done") };
};

export interface CodexGateway extends ReliabilityGateway {
  readonly provider: ScriptedModelProvider;
  readonly home: CodexHome;
}

/**
 * The real gateway over the real codex binary behind a scripted model provider. `childEnv` is
 * what the gateway process would have in its environment (the codex child gets the allow-listed
 * part of it); `config` is the gateway's own settings.
 */
export const gatewayOverCodex = async (
  script: ProviderScript,
  options: {
    readonly config?: Record<string, string>;
    readonly childEnv?: Record<string, string>;
    /** Use this codex backend instead of the default one built from `config`. */
    readonly backend?: (env: NodeJS.ProcessEnv) => ReturnType<typeof createCodexBackend>;
  } = {},
): Promise<CodexGateway> => {
  const provider = await startScriptedModelProvider(script);
  const home = await makeCodexHome(provider.url);
  const { logs, logger } = capture();
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.childEnv, CODEX_HOME: home.path };
  delete env.CODEX_BIN;
  const config = resolveConfig({ env: { LOG_LEVEL: "info", ...options.config }, flags: { port: "0" } });
  let backendLayer: ReturnType<typeof Backend.layerFrom> | undefined;
  let custom: ReturnType<typeof createCodexBackend> | undefined;
  if (options.backend) {
    custom = options.backend(env);
    await custom.warmup();
    backendLayer = Backend.layerFrom(custom);
  }
  const gateway = await startGateway(config, { logger, env, ...(backendLayer ? { backendLayer } : {}) });
  return {
    gateway,
    url: gateway.url,
    logs,
    provider,
    home,
    async close() {
      await gateway.shutdown("test done");
      await custom?.close();
      await provider.close();
      await home.cleanup();
    },
  };
};

export const waitUntil = async (check: () => boolean | Promise<boolean>, what: string, ms = 30_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

export const chat = (url: string, content: string, init: { headers?: Record<string, string> } = {}) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
  });

/** A Chat Completions SSE answer's content deltas joined, and its finish reason. */
export const chatStreamText = (sse: string): { readonly text: string; readonly finish: unknown } => {
  let text = "";
  let finish: unknown;
  for (const line of sse.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    const chunk = JSON.parse(line.slice(6)) as {
      choices: Array<{ delta: { content?: string }; finish_reason: unknown }>;
    };
    text += chunk.choices[0]?.delta.content ?? "";
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  return { text, finish };
};
