import type { ScriptedTurn } from "@proxy/core/testing";

/** The workloads: what the scripted backend plays and what the load generator asks for. */

const WORDS = [
  "The ",
  "gateway ",
  "adds ",
  "almost ",
  "nothing ",
  "to ",
  "each ",
  "streamed ",
  "token, ",
  "see? ",
];

/** 200 plain-text deltas (no `<` anywhere), token-sized like a real model's. */
export const TEXT_DELTAS: ReadonlyArray<string> = Array.from(
  { length: 200 },
  (_, i) => WORDS[i % WORDS.length] as string,
);

const CITIES = ["Paris", "Berlin", "Tokyo"];
const block = (city: string) =>
  `<tool_call>{"name":"get_weather","arguments":"{\\"city\\":\\"${city}\\"}"}</tool_call>`;

/** Cuts text into token-sized pieces (every `size` chars), as a model's stream would. */
export const chunkText = (text: string, size: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

/** A short preamble, then three tool-call blocks, streamed in 6-char deltas (tags split across deltas). */
export const TOOL_DELTAS: ReadonlyArray<string> = chunkText(
  `Let me check the weather.\n${CITIES.map(block).join("\n")}`,
  6,
);

/** Plain text deltas for the holdback check (played slowly). */
export const SLOW_DELTAS: ReadonlyArray<string> = Array.from({ length: 12 }, (_, i) => `part ${i}; `);
/** Control: the same, but every third delta ends in `<` (a possible tag start the parser must hold). */
export const SLOW_NEAR_MISS_DELTAS: ReadonlyArray<string> = SLOW_DELTAS.map((d, i) =>
  i % 3 === 1 ? `${d}a <` : d,
);
export const SLOW_DELAY_MS = 30;

/** Scripted turns keyed by the request's `model`. */
export const SCRIPTS: Readonly<Record<string, ScriptedTurn>> = {
  "bench-text": { chunks: TEXT_DELTAS },
  "bench-tools": { chunks: TOOL_DELTAS },
  "bench-slow": { chunks: SLOW_DELTAS, delayMs: SLOW_DELAY_MS },
  "bench-slow-near-miss": { chunks: SLOW_NEAR_MISS_DELTAS, delayMs: SLOW_DELAY_MS },
  // One delta, then silence until the client goes away: an idle open stream.
  "bench-idle": { chunks: ["Thinking", " …"], hangAfterChunks: 1 },
};

/** The scripted turn for a request's model (unknown models play the text workload). */
export const scriptFor = (request: { readonly model: string }): ScriptedTurn =>
  SCRIPTS[request.model] ?? (SCRIPTS["bench-text"] as ScriptedTurn);

/** How the gateway under test is configured, whichever build it comes from (apps.ts, child/before-gateway.ts). */
export const GATEWAY_UNDER_TEST = {
  apiKeys: [],
  corsOrigins: [],
  bodyLimitBytes: 8 * 1024 * 1024,
} as const;

const WEATHER_PARAMETERS = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

export type Api = "chat" | "responses";

export interface Scenario {
  readonly id: string;
  readonly label: string;
  readonly api: Api;
  readonly path: string;
  readonly stream: boolean;
  readonly body: Readonly<Record<string, unknown>>;
  /** Text deltas the scripted backend plays per request (the unit of "CPU per backend delta"). */
  readonly backendDeltas: number;
}

/** A request body for `model` on either API (tools only for the tool script). */
export const requestBody = (api: Api, model: string, stream: boolean): Record<string, unknown> => {
  const tools = model === "bench-tools";
  if (api === "chat")
    return {
      model,
      stream,
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: tools ? "Weather in Paris, Berlin and Tokyo?" : "Tell me something." },
      ],
      ...(tools
        ? { tools: [{ type: "function", function: { name: "get_weather", parameters: WEATHER_PARAMETERS } }] }
        : {}),
    };
  return {
    model,
    stream,
    instructions: "You are a helpful assistant.",
    input: tools ? "Weather in Paris, Berlin and Tokyo?" : "Tell me something.",
    ...(tools ? { tools: [{ type: "function", name: "get_weather", parameters: WEATHER_PARAMETERS }] } : {}),
  };
};

const scenario = (api: Api, model: string, stream: boolean): Scenario => ({
  id: `${api}-${stream ? "stream" : "json"}-${model === "bench-tools" ? "tools" : "text"}`,
  label: `${api === "chat" ? "chat" : "responses"} ${stream ? "SSE" : "JSON"} ${model === "bench-tools" ? "3 tool calls" : "200 text deltas"}`,
  api,
  path: api === "chat" ? "/v1/chat/completions" : "/v1/responses",
  stream,
  body: requestBody(api, model, stream),
  backendDeltas: (model === "bench-tools" ? TOOL_DELTAS : TEXT_DELTAS).length,
});

/** The HTTP overhead matrix: both APIs, streaming text and tools, and non-streaming text. */
export const HTTP_SCENARIOS: ReadonlyArray<Scenario> = [
  scenario("chat", "bench-text", true),
  scenario("chat", "bench-tools", true),
  scenario("chat", "bench-text", false),
  scenario("responses", "bench-text", true),
  scenario("responses", "bench-tools", true),
  scenario("responses", "bench-text", false),
];
