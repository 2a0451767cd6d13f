import type { RecordedRequest, ScriptedResponse } from "./e2e-gateway.js";

/** One raw Responses item as codex sends it upstream. */
export type Item = {
  type?: string;
  role?: string;
  name?: string;
  call_id?: string;
  arguments?: string;
  output?: unknown;
  content?: Array<{ type?: string; text?: string; image_url?: string }>;
};

export const itemsOf = (r: RecordedRequest): Item[] => (r.body.input ?? []) as Item[];
export const toolsOf = (r: RecordedRequest): Item[] => (r.body.tools ?? []) as Item[];

export const fn = (callId: string, name: string, args: object) => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});

/** The text of the last user message the model received. */
export const askOf = (r: RecordedRequest): string =>
  (
    itemsOf(r)
      .filter((i) => i.type === "message" && i.role === "user")
      .at(-1)
      ?.content?.map((c) => c.text ?? "")
      .join("") ?? ""
  ).trim();

/** Outputs at the end of the model's input: the client just ran its tools. */
export const trailingOutputs = (r: RecordedRequest): string[] => {
  const out: string[] = [];
  for (const item of [...itemsOf(r)].reverse()) {
    if (item.type !== "function_call_output") break;
    out.unshift(String(item.output));
  }
  return out;
};

/**
 * The scripted model of the native suite: it answers tool outputs with a sentence, and otherwise
 * follows the marker in the user's question (each test asks with its own marker).
 */
export const nativeModel = (r: RecordedRequest): ScriptedResponse => {
  const outputs = trailingOutputs(r);
  if (outputs.length > 0) return { chunks: ["The weather: ", outputs.join(" / ")] };
  const ask = askOf(r);
  const id = (k: number | string) => `call_${r.index}_${k}`;
  const corrective = ask.startsWith("Your previous reply broke the function-calling rules");
  if (ask.includes("[three]"))
    return {
      chunks: ["Checking three cities."],
      items: ["Paris", "Oslo", "Lima"].map((city, k) => fn(id(k), "get_weather", { city })),
      itemsLast: true,
    };
  if (ask.includes("[none]")) return { items: [fn(id(0), "get_weather", { city: "Paris" })] };
  if (ask.includes("[required]") || (corrective && ask.includes("did not call any function")))
    return corrective
      ? { items: [fn(id(0), "get_weather", { city: "Rome" })] }
      : { text: "I would rather chat." };
  if (ask.includes("[forced]")) return { items: [fn(id(0), "get_time", { tz: "UTC" })] };
  if (ask.includes("[strict]") || (corrective && ask.includes("book")))
    return { items: [fn(id(0), "book", corrective ? { seat: "2B" } : { seat: 12 })] };
  // Not one of the client's tools: codex answers it "unsupported" itself and asks the model again.
  if (ask.includes("[unknown]")) return { items: [fn(id(0), "launch_rockets", {})] };
  if (ask.includes("[after]"))
    return { items: [fn(id(0), "get_weather", { city: "Paris" })], chunks: ["And some words after."] };
  if (ask.includes("[reasoning]"))
    return { reasoning: "The user wants weather.", items: [fn(id(0), "get_weather", { city: "Paris" })] };
  if (ask.includes("[format]")) return { text: '{"city":"Paris"}' };
  if (/weather/i.test(ask) || ask.includes("[image]"))
    return {
      chunks: ["Let me check. "],
      items: [fn(id(0), "get_weather", { city: "Paris" })],
      itemsLast: true,
    };
  return { text: "Hello from the native model." };
};
