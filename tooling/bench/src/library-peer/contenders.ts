import { hermesProtocol, hermesToolMiddleware } from "@ai-sdk-tool/parser";
import { toolCallingMiddleware } from "@proxy/ai-sdk";
import { createArgumentsValidator, createSentinelParser, type ParserSink, type ToolSpec } from "@proxy/core";
import { type LanguageModelMiddleware, wrapLanguageModel } from "ai";

/**
 * The two middlewares under test, each wrapped around the same scripted text model by the AI
 * SDK's own `wrapLanguageModel`: ours (`@proxy/ai-sdk`, core's parser) and the peer
 * (`@ai-sdk-tool/parser`'s hermes middleware). What is timed is the whole AI SDK stream path a
 * user runs: the middleware's prompt rendering once per stream, then its parse of every delta.
 */
export interface Contender {
  readonly name: string;
  readonly middleware: () => LanguageModelMiddleware;
  /** The contender's parser alone, over one stream of `deltas`; resolves once all is read. */
  readonly parse: (deltas: ReadonlyArray<string>) => Promise<number>;
}

export const CONTENDERS: ReadonlyArray<Contender> = [
  {
    name: "@proxy/ai-sdk",
    // Parsing alone: the policy that drops text after calls and repeated calls is off.
    middleware: () => toolCallingMiddleware({ stopAfterTools: false, dedupe: false }),
    parse: async (deltas) => parseWithCore(deltas),
  },
  {
    name: "@ai-sdk-tool/parser (hermes)",
    middleware: () => hermesToolMiddleware as unknown as LanguageModelMiddleware,
    // Its parser exists only as a TransformStream over stream parts: that is its push.
    parse: (deltas) =>
      drain(
        deltaStream(deltas).pipeThrough(
          hermesProtocol().createStreamParser({ tools: TOOLS as never }) as unknown as TransformStream<
            Part,
            Part
          >,
        ),
      ),
  },
];

export const TOOLS = [
  {
    type: "function" as const,
    name: "weather",
    description: "The weather in a city",
    inputSchema: {
      type: "object" as const,
      properties: { city: { type: "string" as const } },
      required: ["city"],
    },
  },
  {
    type: "function" as const,
    name: "search",
    description: "Search the web",
    inputSchema: { type: "object" as const, properties: { query: { type: "string" as const } } },
  },
];

type Part = { readonly type: string; readonly [key: string]: unknown };

const SPECS: ReadonlyArray<ToolSpec> = TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  parameters: t.inputSchema,
  strict: false,
}));
const VALIDATOR = createArgumentsValidator(SPECS);
const BY_NAME = new Map(SPECS.map((t) => [t.name, t]));

/** Counts what core's parser delivers (the sink the middleware's pipeline stands in for). */
class CountingSink implements ParserSink {
  n = 0;
  text(): void {
    this.n++;
  }
  event(): void {
    this.n++;
  }
}

/** Core's parser alone: one synchronous `pushTo` per delta, then `flushTo`. */
const parseWithCore = (deltas: ReadonlyArray<string>): number => {
  const parser = createSentinelParser({ tools: BY_NAME, validator: VALIDATOR });
  const sink = new CountingSink();
  for (const delta of deltas) parser.pushTo(delta, sink);
  parser.flushTo(sink);
  return sink.n;
};

/** A model that only writes text: each stream plays the deltas its source hands it. */
const textModel = (source: () => ReadableStream<Part>) => ({
  specificationVersion: "v3" as const,
  provider: "bench",
  modelId: "text-only",
  supportedUrls: {},
  doGenerate: async () => {
    throw new Error("the bench streams only");
  },
  doStream: async () => ({ stream: source() }),
});

const FINISH: Part = {
  type: "finish",
  finishReason: { unified: "stop", raw: "stop" },
  usage: {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  },
};

/** The deltas as a model stream, all parts queued at once (the model is never the bottleneck). */
export const deltaStream = (deltas: ReadonlyArray<string>): ReadableStream<Part> =>
  new ReadableStream<Part>({
    start(controller) {
      controller.enqueue({ type: "stream-start", warnings: [] });
      controller.enqueue({ type: "text-start", id: "t" });
      for (const delta of deltas) controller.enqueue({ type: "text-delta", id: "t", delta });
      controller.enqueue({ type: "text-end", id: "t" });
      controller.enqueue(FINISH);
      controller.close();
    },
  });

export interface Outcome {
  readonly text: string;
  readonly calls: Array<{ name: string; input: unknown }>;
}

const PROMPT = [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }];

/** A wrapped model for one contender; `source` makes each stream's model output. */
export const wrapped = (contender: Contender, source: () => ReadableStream<Part>) =>
  wrapLanguageModel({
    model: textModel(source) as unknown as Parameters<typeof wrapLanguageModel>[0]["model"],
    middleware: contender.middleware(),
  });

export type WrappedModel = ReturnType<typeof wrapped>;

/** Opens one stream of the wrapped model (with the bench's tools). */
export const openStream = (model: WrappedModel) =>
  model.doStream({ prompt: PROMPT, tools: TOOLS } as Parameters<WrappedModel["doStream"]>[0]);

/** Reads a wrapped stream to its end: its text and its calls (input parsed; unparsable kept as text). */
export const readOutcome = async (stream: ReadableStream<unknown>): Promise<Outcome> => {
  let text = "";
  const calls: Outcome["calls"] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    const part = next.value as Part;
    if (part.type === "text-delta") text += String(part.delta ?? part.text ?? "");
    else if (part.type === "tool-call") {
      let input: unknown = part.input;
      try {
        input = JSON.parse(String(part.input));
      } catch {}
      calls.push({ name: String(part.toolName), input });
    }
  }
  return { text, calls };
};

/** Reads a wrapped stream to its end, counting parts only (the timed path). */
export const drain = async (stream: ReadableStream<unknown>): Promise<number> => {
  let parts = 0;
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts++;
  return parts;
};
