/** Shared request pieces and scripted-backend helpers for the tests. */

export const MODEL = "gpt-test";

export const WEATHER_TOOL = {
  type: "function" as const,
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
  strict: false,
};

export const TIME_TOOL = {
  type: "function" as const,
  name: "get_time",
  description: "Current time in a timezone.",
  parameters: {
    type: "object",
    properties: { tz: { type: "string" } },
    required: ["tz"],
    additionalProperties: false,
  },
  strict: false,
};

/** The sentinel block a backend writes for a call: arguments as a JSON string. */
export const toolBlock = (name: string, args: Record<string, unknown>): string =>
  `<tool_call>${JSON.stringify({ name, arguments: JSON.stringify(args) })}</tool_call>`;

/** Split text into n-character fragments, as a streaming backend would. */
export const fragments = (text: string, size = 7): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

/** Everything the backend was shown for a request, as one searchable string. */
export const promptText = (request: {
  readonly instructions: string;
  readonly history: ReadonlyArray<
    { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }> } | object
  >;
  readonly input: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
}): string =>
  [
    request.instructions,
    ...request.history.flatMap((m) => ("content" in m ? m.content.map((p) => p.text ?? `[${p.type}]`) : [])),
    ...request.input.map((p) => p.text ?? `[${p.type}]`),
  ].join("\n");
