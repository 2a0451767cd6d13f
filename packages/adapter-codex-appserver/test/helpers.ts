import type { BackendRequest, PromptMessage, ToolSpec } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";
import { type CodexBackend, type CodexBackendOptions, createCodexBackend } from "../src/index.js";
import {
  type CodexHome,
  makeCodexHome,
  type ProviderScript,
  type ScriptedModelProvider,
  startScriptedModelProvider,
} from "../src/testing/index.js";

export const collect = async (events: AsyncIterable<BackendEvent>): Promise<BackendEvent[]> => {
  const out: BackendEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
};

export const textOf = (events: ReadonlyArray<BackendEvent>): string =>
  events.map((e) => (e.type === "text-delta" ? e.delta : "")).join("");

export const request = (overrides: Partial<BackendRequest> = {}): BackendRequest => ({
  model: "scripted-model",
  instructions: "You are a test model.",
  history: [],
  input: [{ type: "text", text: "hi" }],
  ...overrides,
});

export const userMessage = (text: string): PromptMessage => ({
  role: "user",
  content: [{ type: "text", text }],
});
export const assistantMessage = (text: string): PromptMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
});

/** The native-mode tests' one client tool. */
export const weatherTool: ToolSpec = {
  name: "get_weather",
  description: "weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
  strict: false,
};
/** A native-mode request offering `weatherTool`, on the caller "n". */
export const nativeRequest = (overrides: Partial<BackendRequest>) =>
  request({
    tools: { tools: [weatherTool], choice: { type: "auto" }, parallel: true },
    partition: "n",
    ...overrides,
  });

/** The text of the last user message codex sent upstream (how scripts tell concurrent turns apart). */
export const lastUserText = (body: Readonly<Record<string, unknown>>): string => {
  const input = (body.input ?? []) as Array<{ role?: string; content?: Array<{ text?: string }> }>;
  const users = input.filter((i) => i.role === "user");
  return (
    users
      .at(-1)
      ?.content?.map((c) => c.text ?? "")
      .join("") ?? ""
  );
};

/** The child environment for the real binary: a scripted CODEX_HOME, and never a CODEX_BIN override. */
export const realEnv = (home: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home };
  delete env.CODEX_BIN;
  return env;
};

export interface RealHarness {
  readonly provider: ScriptedModelProvider;
  readonly home: CodexHome;
  readonly backend: CodexBackend;
  close(): Promise<void>;
}

/** A scripted provider + CODEX_HOME + a warmed-up backend over the real pinned codex binary. */
export const startRealHarness = async (
  options: Partial<CodexBackendOptions> = {},
  homeOptions: Parameters<typeof makeCodexHome>[1] = {},
  script: ProviderScript = [],
): Promise<RealHarness> => {
  const provider = await startScriptedModelProvider(script);
  const home = await makeCodexHome(provider.url, homeOptions);
  const backend = createCodexBackend({ env: realEnv(home.path), ...options });
  await backend.warmup();
  return {
    provider,
    home,
    backend,
    close: async () => {
      await backend.close();
      await provider.close();
      await home.cleanup();
    },
  };
};
