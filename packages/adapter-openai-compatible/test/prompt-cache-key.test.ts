import type { BackendRequest, PromptMessage } from "@proxy/core";
import { o200kEncoding } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAICompatibleBackend, type OpenAICompatibleBackend } from "../src/index.js";
import { type ScriptedUpstream, startScriptedUpstream } from "../src/testing/index.js";

const user = (text: string): PromptMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): PromptMessage => ({ role: "assistant", content: [{ type: "text", text }] });
const turn = (history: PromptMessage[], text: string, partition = "caller-a"): BackendRequest => ({
  model: "qwen3:8b",
  instructions: "You are terse.",
  history,
  input: [{ type: "text", text }],
  partition,
});

describe("prompt_cache_key per conversation (openai-compatible route option)", () => {
  let upstream: ScriptedUpstream;
  let keyed: OpenAICompatibleBackend;
  let plain: OpenAICompatibleBackend;
  beforeAll(async () => {
    upstream = await startScriptedUpstream(() => ({ text: "ok" }));
    keyed = createOpenAICompatibleBackend({
      tokens: o200kEncoding,
      baseUrl: upstream.url,
      promptCacheKey: true,
    });
    plain = createOpenAICompatibleBackend({ tokens: o200kEncoding, baseUrl: upstream.url });
  });
  afterAll(async () => {
    await keyed.close();
    await plain.close();
    await upstream.close();
  });
  const send = async (backend: OpenAICompatibleBackend, request: BackendRequest) => {
    for await (const _ of backend.stream(request, { signal: new AbortController().signal })) {
      // drain
    }
    return upstream.requests.at(-1)?.body.prompt_cache_key;
  };

  it("one key over a linear conversation; another conversation or caller gets another", async () => {
    const k1 = await send(keyed, turn([], "q1"));
    const k2 = await send(keyed, turn([user("q1"), assistant("ok")], "q2"));
    const k3 = await send(keyed, turn([user("q1"), assistant("ok"), user("q2"), assistant("ok")], "q3"));
    expect(typeof k1).toBe("string");
    expect(String(k1).length).toBeLessThanOrEqual(64);
    expect([k2, k3]).toEqual([k1, k1]);
    expect(await send(keyed, turn([], "another topic"))).not.toBe(k1);
    expect(await send(keyed, turn([user("q1"), assistant("ok")], "q2", "caller-b"))).not.toBe(k1);
  });

  it("is not sent unless the route asks for it", async () => {
    expect(await send(plain, turn([], "q1"))).toBeUndefined();
  });
});
