import { describe, expect, it } from "vitest";
import { isGatewayError } from "../errors/gateway-error.js";
import type { BackendEvent } from "../events/stream-event.js";
import type { ToolSpec } from "../model/tool-spec.js";
import type { BackendRequest, NativeToolCall, TextBackend } from "../ports/text-backend.js";

/** A backend-agnostic description of what the model behind a backend should do for one turn. */
export interface ContractTurn {
  readonly text: string;
  /** How the model streams `text` (concatenation must equal `text`). */
  readonly chunks?: ReadonlyArray<string> | undefined;
  readonly reasoning?: string | undefined;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number } | undefined;
  /** The model provider fails the turn. */
  readonly failWith?: "server_error" | undefined;
  /** The model streams its first chunk, then never finishes. */
  readonly hang?: boolean | undefined;
  /** Route: serve this turn to the request whose input text contains `match` (else in queue order). */
  readonly match?: string | undefined;
  /** Native function calls the model makes after `text` (client tool names; native cases only). */
  readonly toolCalls?: ReadonlyArray<NativeToolCall> | undefined;
}

/** What the model received in its latest request, as far as native tools are concerned. */
export interface ModelView {
  /** Names of the function tools it was offered (as the backend exposed them). */
  readonly tools: ReadonlyArray<string>;
  /** Earlier calls in its input, as native function-call items. */
  readonly toolCalls: ReadonlyArray<NativeToolCall>;
  /** Tool outputs in its input, as native function-output items. */
  readonly toolOutputs: ReadonlyArray<{ readonly callId: string; readonly output: string }>;
}

/** What each adapter provides to run the shared suite against its real backend. */
export interface ContractHarness {
  readonly backend: TextBackend;
  script(turn: ContractTurn): void;
  /** Native cases: what the model saw in its latest request. */
  lastModelView?(): ModelView;
  close(): Promise<void>;
}

export interface ContractOptions {
  /** Case names to skip, each with the reason in a comment at the call site. */
  readonly skip?: ReadonlyArray<string>;
  readonly timeoutMs?: number;
  /** The backend declares `capabilities.nativeTools`: also run the native tool-call cases. */
  readonly nativeTools?: boolean;
}

const request = (text: string): BackendRequest => ({
  model: "contract-model",
  instructions: "You are the contract suite's model.",
  history: [{ role: "user", content: [{ type: "text", text: "Earlier question." }] }],
  input: [{ type: "text", text }],
});

const WEATHER: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};

const nativeRequest = (text: string, overrides: Partial<BackendRequest> = {}): BackendRequest => ({
  ...request(text),
  tools: { tools: [WEATHER], choice: { type: "auto" }, parallel: true },
  ...overrides,
});

const callsOf = (events: ReadonlyArray<BackendEvent>): NativeToolCall[] =>
  events.flatMap((e) =>
    e.type === "tool-call-end" ? [{ callId: e.callId, name: e.name, arguments: e.arguments }] : [],
  );

/** One finish, last, and no error: the turn ended cleanly. */
const expectCleanEnd = (events: ReadonlyArray<BackendEvent>) => {
  expect(events[0]?.type).toBe("stream-start");
  expect(events.filter((e) => e.type === "error")).toEqual([]);
  expect(events.filter((e) => e.type === "finish")).toHaveLength(1);
  expect(events.at(-1)?.type).toBe("finish");
};

/** Reads a turn the way the core does (in batches); a batch is never empty. */
const collect = async (backend: TextBackend, req: BackendRequest, signal = new AbortController().signal) => {
  const events: BackendEvent[] = [];
  try {
    for await (const batch of backend.stream(req, { signal }).batches()) {
      expect(batch.length).toBeGreaterThan(0);
      events.push(...batch);
    }
  } catch (error) {
    events.push({ type: "error", error: isGatewayError(error) ? error : (error as never) });
  }
  return events;
};

const collectOneByOne = async (backend: TextBackend, req: BackendRequest) => {
  const events: BackendEvent[] = [];
  for await (const e of backend.stream(req, { signal: new AbortController().signal })) events.push(e);
  return events;
};

const textOf = (events: ReadonlyArray<BackendEvent>, type: "text-delta" | "reasoning-delta") =>
  events.flatMap((e) => (e.type === type ? [e.delta] : [])).join("");

/**
 * The `TextBackend` contract every adapter runs (hono router-suite style): event order, text
 * fidelity, reasoning, usage, abort, concurrency isolation, failures, models and readiness.
 */
export const describeTextBackendContract = (
  name: string,
  makeHarness: () => Promise<ContractHarness>,
  options: ContractOptions = {},
): void => {
  const test = (title: string, fn: (h: ContractHarness) => Promise<void>) =>
    (options.skip?.includes(title) ? it.skip : it)(
      title,
      async () => {
        const harness = await makeHarness();
        try {
          await fn(harness);
        } finally {
          await harness.close();
        }
      },
      options.timeoutMs ?? 60_000,
    );

  describe(`TextBackend contract: ${name}`, () => {
    test("streams stream-start, the exact text, usage, then one stop finish", async (h) => {
      const text = 'Hello from the contract suite: <tool_call>{"a":1}</tool_call> ünïcødé 🚀.';
      h.script({
        text,
        chunks: ["Hello from ", "the contract suite: <tool_", 'call>{"a":1}</tool_call> ünïcødé 🚀.'],
        usage: { inputTokens: 42, outputTokens: 7 },
      });
      const events = await collect(h.backend, request("say hello"));
      expect(events[0]?.type).toBe("stream-start");
      expect(textOf(events, "text-delta")).toBe(text);
      const finishes = events.filter((e) => e.type === "finish");
      expect(finishes).toHaveLength(1);
      expect(events.at(-1)).toEqual({ type: "finish", finish: expect.objectContaining({ reason: "stop" }) });
      const usage = events.find((e) => e.type === "usage");
      expect(usage).toMatchObject({ usage: { inputTokens: 42, outputTokens: 7, totalTokens: 49 } });
    });

    test("stream() yields the same events as the batches, one by one", async (h) => {
      const turn = { text: "One, two, three.", chunks: ["One, ", "two, ", "three."], reasoning: "Counting." };
      h.script(turn);
      const batched = await collect(h.backend, request("count"));
      h.script(turn);
      const single = await collectOneByOne(h.backend, request("count"));
      const shape = (events: ReadonlyArray<BackendEvent>) =>
        events.map((e) => (e.type === "text-delta" || e.type === "reasoning-delta" ? e.delta : e.type));
      expect(shape(single)).toEqual(shape(batched));
    });

    test("streams reasoning before the text", async (h) => {
      h.script({ text: "The answer is 4.", reasoning: "Two plus two is four." });
      const events = await collect(h.backend, request("what is 2+2"));
      expect(textOf(events, "reasoning-delta")).toBe("Two plus two is four.");
      const firstText = events.findIndex((e) => e.type === "text-delta");
      const lastReasoning = events.findLastIndex((e) => e.type === "reasoning-delta");
      expect(lastReasoning).toBeLessThan(firstText);
    });

    test("abort ends a hanging turn promptly without a stop finish", async (h) => {
      h.script({ text: "I will never finish", hang: true });
      const controller = new AbortController();
      const events: BackendEvent[] = [];
      for await (const e of h.backend.stream(request("hang please"), { signal: controller.signal })) {
        events.push(e);
        if (e.type === "text-delta") controller.abort();
      }
      expect(textOf(events, "text-delta").length).toBeGreaterThan(0);
      // The turn was cut short: no finish at all, or one that says it was interrupted.
      const finishes = events.flatMap((e) => (e.type === "finish" ? [e.finish] : []));
      expect(finishes.every((f) => f.raw === "interrupted")).toBe(true);
    });

    test("concurrent turns do not cross-talk", async (h) => {
      const names = ["alpha", "bravo", "charlie", "delta"];
      for (const n of names) h.script({ text: `answer for ${n}`, match: `ask-${n}` });
      const results = await Promise.all(names.map((n) => collect(h.backend, request(`ask-${n}`))));
      results.forEach((events, i) => {
        expect(textOf(events, "text-delta")).toBe(`answer for ${names[i]}`);
      });
    });

    test("a failing model provider ends the turn with a GatewayError", async (h) => {
      h.script({ text: "", failWith: "server_error" });
      const events = await collect(h.backend, request("fail please"));
      const error = events.find((e) => e.type === "error");
      expect(error && isGatewayError(error.error)).toBe(true);
      expect(events.some((e) => e.type === "finish" && e.finish.reason === "stop")).toBe(false);
    });

    if (options.nativeTools) {
      test("native: capabilities say so", async (h) => {
        // What core reads: the per-model answer (a model router), else the backend-wide one.
        const capabilities = h.backend.capabilitiesFor?.("contract-model") ?? h.backend.capabilities;
        expect(capabilities?.nativeTools).toBe(true);
      });

      test("native: one call comes back with the model's call id, the client's name and exact arguments", async (h) => {
        const call = { callId: "call_contract_1", name: "get_weather", arguments: '{"city":"Paris"}' };
        h.script({ text: "", toolCalls: [call], match: "native-one" });
        const events = await collect(h.backend, nativeRequest("native-one: weather in Paris?"));
        expectCleanEnd(events);
        expect(callsOf(events)).toEqual([call]);
        const view = h.lastModelView?.();
        if (view) expect(view.tools).toEqual(["get_weather"]);
      });

      test("native: three parallel calls come back in order, after the text", async (h) => {
        const calls = ["Paris", "Oslo", "Lima"].map((city, i) => ({
          callId: `call_par_${i}`,
          name: "get_weather",
          arguments: JSON.stringify({ city }),
        }));
        h.script({ text: "Checking three cities.", toolCalls: calls, match: "native-three" });
        const events = await collect(h.backend, nativeRequest("native-three: three cities"));
        expectCleanEnd(events);
        expect(callsOf(events)).toEqual(calls);
        expect(textOf(events, "text-delta")).toBe("Checking three cities.");
        const firstCall = events.findIndex((e) => e.type.startsWith("tool-call"));
        expect(events.findLastIndex((e) => e.type === "text-delta")).toBeLessThan(firstCall);
      });

      test("native: history keeps calls and outputs native, and a turn may start from tool outputs alone", async (h) => {
        h.script({ text: "It is sunny in Paris." });
        const earlier = { callId: "call_hist_1", name: "get_weather", arguments: '{"city":"Paris"}' };
        const req = nativeRequest("", {
          history: [
            { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
            { role: "assistant", toolCalls: [earlier] },
            { role: "tool", callId: "call_hist_1", output: "Sunny, 22C" },
          ],
          input: [],
        });
        const events = await collect(h.backend, req);
        expectCleanEnd(events);
        expect(textOf(events, "text-delta")).toBe("It is sunny in Paris.");
        const view = h.lastModelView?.();
        if (view) {
          expect(view.toolCalls).toEqual([earlier]);
          expect(view.toolOutputs).toEqual([{ callId: "call_hist_1", output: "Sunny, 22C" }]);
        }
      });
    }

    test("lists models and reports readiness", async (h) => {
      const models = await h.backend.listModels();
      expect(models.length).toBeGreaterThan(0);
      expect(typeof models[0]?.id).toBe("string");
      const readiness = h.backend.readiness();
      expect(readiness.ready).toBe(true);
      expect(readiness.capacity).toBeGreaterThan(0);
    });
  });
};
