/** Scripted-backend text for the sentinel format the core teaches: `<tool_call>{"name","arguments"}</tool_call>`. */
export const toolBlock = (name: string, args: Record<string, unknown>): string =>
  `<tool_call>${JSON.stringify({ name, arguments: JSON.stringify(args) })}</tool_call>`;

/** Splits text into pieces of `size` characters, so blocks arrive fragmented like real model output. */
export const fragments = (text: string, size = 7): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

export const WEATHER_TOOL = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};

export const TIME_TOOL = {
  name: "get_time",
  description: "Current time in a timezone",
  input_schema: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
};

export const USER_ASKS = [{ role: "user" as const, content: "What is the weather in Paris?" }];

/** The smallest valid body: a model, a budget and one user message. */
export const base = (extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  messages: USER_ASKS,
  ...extra,
});
