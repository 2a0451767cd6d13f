import { describe, expect, it } from "vitest";
import { type BackendMiddleware, wrapBackend } from "../../src/gateway.js";
import { type BackendRequest, GatewayError } from "../../src/index.js";
import { createScriptedBackend } from "../../src/testing/index.js";

const request = (model: string): BackendRequest => ({
  model,
  instructions: "",
  history: [],
  input: [{ type: "text", text: "hi" }],
});

/** A layer that appends its name to the model it passes on and to the text it passes back. */
const tagging = (name: string): BackendMiddleware => ({
  stream(req, options, next) {
    const inner = next({ ...req, model: `${req.model}>${name}` }, options);
    return (async function* () {
      for await (const batch of inner)
        yield batch.map((e) => (e.type === "text-delta" ? { ...e, delta: `${e.delta}<${name}` } : e));
    })();
  },
  listModels: async (next) => [...(await next()), { id: name }],
  readiness: (next) => ({ ...next(), detail: `${next().detail ?? ""}<${name}` }),
  capabilitiesFor: (model, next) => (model === name ? { nativeTools: true } : next(model)),
});

const textOf = async (stream: AsyncIterable<{ type: string; delta?: string }>) => {
  let text = "";
  for await (const e of stream) if (e.type === "text-delta") text += e.delta;
  return text;
};

describe("wrapBackend over a list of middleware", () => {
  it("the first entry is the outermost: it sees the request first and the batches last", async () => {
    const inner = createScriptedBackend([{ chunks: ["x"] }], { models: [{ id: "m" }] });
    const backend = wrapBackend(inner, [tagging("a"), tagging("b")]);
    const text = await textOf(backend.stream(request("m"), { signal: new AbortController().signal }));
    expect(inner.requests[0]?.model).toBe("m>a>b");
    expect(text).toBe("x<b<a");
    expect((await backend.listModels()).map((m) => m.id)).toEqual(["m", "b", "a"]);
    expect(backend.readiness().detail?.endsWith("<b<a")).toBe(true);
    expect(backend.capabilitiesFor?.("a")).toEqual({ nativeTools: true });
    expect(backend.capabilitiesFor?.("b")).toEqual({ nativeTools: true });
  });

  it("an empty list is the backend as it is; one entry is the same as that middleware alone", async () => {
    const inner = createScriptedBackend([{ chunks: ["y"] }, { chunks: ["y"] }]);
    const bare = wrapBackend(inner, []);
    expect(bare).toBe(inner);
    const signal = new AbortController().signal;
    const one = await textOf(wrapBackend(inner, [tagging("a")]).stream(request("m"), { signal }));
    const alone = await textOf(wrapBackend(inner, tagging("a")).stream(request("m"), { signal }));
    expect(one).toBe(alone);
  });

  it("an outer layer's refusal stops the request before any inner layer or the backend sees it", async () => {
    const inner = createScriptedBackend([{ chunks: ["never"] }]);
    const seen: string[] = [];
    const refuse: BackendMiddleware = {
      stream() {
        seen.push("refuse");
        throw new GatewayError("rate_limited", "no");
      },
    };
    const watch: BackendMiddleware = {
      stream(req, options, next) {
        seen.push("watch");
        return next(req, options);
      },
    };
    const backend = wrapBackend(inner, [refuse, watch]);
    await expect(
      textOf(backend.stream(request("m"), { signal: new AbortController().signal })),
    ).rejects.toThrow("no");
    expect(seen).toEqual(["refuse"]);
    expect(inner.requests).toHaveLength(0);
  });
});
