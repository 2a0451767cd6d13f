import { Agent, tool as agentTool, OpenAIProvider, Runner, setTracingDisabled } from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { lastUserText, type RecordedRequest, startE2E, toolCallText, transcriptOf } from "./e2e-gateway.js";

/** The scripted model: asks for the weather tool, answers from the tool result, else echoes. */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  const result = /\[function_call_output call_id="call_\w+" output=("(?:[^"\\]|\\.)*")\]/.exec(input);
  if (result) return { chunks: ["The weather: ", JSON.parse(result[1] ?? '""') as string] };
  if (/weather/i.test(input))
    return { chunks: ["Let me check. ", toolCallText("get_weather", { city: "Paris" })] };
  return { text: `You said: ${input}` };
};

const weatherTool = {
  type: "function" as const,
  name: "get_weather",
  strict: false,
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};

const ALICE = "sk-alice-0123456789";
const MALLORY = "sk-mallory-0123456789";

describe("stored responses and conversations, end to end through the real codex binary", {
  timeout: 90_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let alice: OpenAI;
  let mallory: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(model, { PROXY_STORE: "memory", PROXY_API_KEYS: `${ALICE},${MALLORY}` });
    alice = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: ALICE, maxRetries: 0 });
    mallory = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: MALLORY, maxRetries: 0 });
    setTracingDisabled(true);
  }, 60_000);
  afterAll(() => e2e?.close());

  it("previous_response_id carries a tool round trip; retrieve, inputItems.list and delete behave like OpenAI", async () => {
    const first = await alice.responses.create({
      model: "e2e-model",
      instructions: "Be brief.",
      input: "What's the weather in Paris?",
      tools: [weatherTool],
    });
    expect(first).toMatchObject({ store: true });
    const call = first.output.find((item) => item.type === "function_call");
    expect(call?.type === "function_call" && call.name).toBe("get_weather");
    if (call?.type !== "function_call") throw new Error("no call");

    const second = await alice.responses.create({
      model: "e2e-model",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny" }],
      tools: [weatherTool],
    });
    expect(second.output_text).toBe("The weather: sunny");
    expect(second.previous_response_id).toBe(first.id);
    expect(second.instructions).toBeNull();
    const upstream = e2e.provider.requests.at(-1) as RecordedRequest;
    // The chain reached the backend: the first question and the call are history of the second turn.
    expect(transcriptOf(upstream)).toContain("What's the weather in Paris?");
    expect(transcriptOf(upstream)).toContain("get_weather");
    expect(JSON.stringify(upstream.body)).not.toContain("Be brief.");

    const retrieved = await alice.responses.retrieve(second.id);
    expect(retrieved).toMatchObject({ id: second.id, status: "completed", output: second.output });
    const items = await alice.responses.inputItems.list(second.id);
    expect(items.data).toEqual([
      expect.objectContaining({ type: "function_call_output", call_id: call.call_id, output: "sunny" }),
    ]);
    const firstItems = await alice.responses.inputItems.list(first.id, { order: "asc" });
    expect(firstItems.data).toEqual([
      expect.objectContaining({
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "What's the weather in Paris?" }],
      }),
    ]);

    await alice.responses.delete(second.id);
    await expect(alice.responses.retrieve(second.id)).rejects.toMatchObject({ status: 404 });
    const before = e2e.provider.requests.length;
    const refused = await alice.responses
      .create({ model: "e2e-model", previous_response_id: second.id, input: "and now?" })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, param: "previous_response_id" });
    expect(e2e.provider.requests.length).toBe(before);
  });

  it("a stored response streams again with GET ?stream=true, from starting_after", async () => {
    const response = await alice.responses.create({ model: "e2e-model", input: "replay me" });
    const replay = async (query: string) => {
      const res = await fetch(`${e2e.url}/v1/responses/${response.id}?${query}`, {
        headers: { authorization: `Bearer ${ALICE}` },
      });
      const text = await res.text();
      return [...text.matchAll(/^data: (.*)$/gm)].map(
        (m) => JSON.parse(m[1] ?? "{}") as { type: string; sequence_number: number },
      );
    };
    const all = await replay("stream=true");
    expect(all[0]?.type).toBe("response.created");
    expect(all.at(-1)?.type).toBe("response.completed");
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i));
    const tail = await replay("stream=true&starting_after=2");
    expect(tail).toEqual(all.slice(3));
  });

  it("another API key cannot read, list, continue, cancel or delete what a key stored", async () => {
    const mine = await alice.responses.create({ model: "e2e-model", input: "private" });
    await expect(mallory.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(mallory.responses.inputItems.list(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(mallory.responses.delete(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(mallory.responses.cancel(mine.id)).rejects.toMatchObject({ status: 404 });
    const before = e2e.provider.requests.length;
    await expect(
      mallory.responses.create({ model: "e2e-model", previous_response_id: mine.id, input: "leak it" }),
    ).rejects.toMatchObject({ status: 400, param: "previous_response_id" });
    expect(e2e.provider.requests.length).toBe(before);
    // An item_reference resolves for its owner only (the owner-keyed cache included).
    const referring = [
      { type: "item_reference" as const, id: mine.output[0]?.id ?? "" },
      { role: "user" as const, content: "what did it say?" },
    ];
    await alice.responses.create({ model: "e2e-model", input: referring });
    expect(transcriptOf(e2e.provider.requests.at(-1) as RecordedRequest)).toContain("You said: private");
    await mallory.responses.create({ model: "e2e-model", input: referring });
    expect(transcriptOf(e2e.provider.requests.at(-1) as RecordedRequest)).not.toContain("You said: private");

    const conversation = await alice.conversations.create({ items: [{ role: "user", content: "secret" }] });
    await expect(mallory.conversations.retrieve(conversation.id)).rejects.toMatchObject({ status: 404 });
    await expect(mallory.conversations.items.list(conversation.id)).rejects.toMatchObject({ status: 404 });
    await expect(mallory.conversations.delete(conversation.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      mallory.responses.create({ model: "e2e-model", conversation: conversation.id, input: "leak it" }),
    ).rejects.toMatchObject({ status: 404, param: "conversation" });
    expect((await alice.responses.retrieve(mine.id)).id).toBe(mine.id);
    expect((await alice.conversations.retrieve(conversation.id)).id).toBe(conversation.id);
  });

  it("conversations.*: create, items, a response in the conversation, metadata, delete", async () => {
    const conversation = await alice.conversations.create({
      metadata: { topic: "weather" },
      items: [{ type: "message", role: "user", content: "My name is Ada." }],
    });
    expect(conversation).toMatchObject({ object: "conversation", metadata: { topic: "weather" } });

    const response = await alice.responses.create({
      model: "e2e-model",
      conversation: conversation.id,
      input: "What is my name?",
    });
    expect(response.conversation?.id).toBe(conversation.id);
    expect(transcriptOf(e2e.provider.requests.at(-1) as RecordedRequest)).toContain("My name is Ada.");

    const items = await alice.conversations.items.list(conversation.id, { order: "asc" });
    expect(items.data.map((i) => i.type === "message" && i.role)).toEqual(["user", "user", "assistant"]);
    const added = await alice.conversations.items.create(conversation.id, {
      items: [{ type: "message", role: "user", content: "Remember: tea." }],
    });
    const addedId = added.data[0]?.id ?? "";
    expect(
      await alice.conversations.items.retrieve(addedId, { conversation_id: conversation.id }),
    ).toMatchObject({
      id: addedId,
      type: "message",
    });
    await alice.conversations.items.delete(addedId, { conversation_id: conversation.id });
    await expect(
      alice.conversations.items.retrieve(addedId, { conversation_id: conversation.id }),
    ).rejects.toMatchObject({ status: 404 });

    expect(
      (await alice.conversations.update(conversation.id, { metadata: { topic: "tea" } })).metadata,
    ).toEqual({
      topic: "tea",
    });
    expect(await alice.conversations.delete(conversation.id)).toMatchObject({ deleted: true });
    await expect(alice.conversations.retrieve(conversation.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      alice.responses.create({ model: "e2e-model", conversation: conversation.id, input: "hi" }),
    ).rejects.toMatchObject({ status: 404, param: "conversation" });
  });

  it("Agents SDK: a tool loop with previousResponseId, then with conversationId", async () => {
    const getWeather = agentTool({
      name: "get_weather",
      description: "weather",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `Foggy in ${city}`,
    });
    const agent = new Agent({
      name: "weather",
      instructions: "Answer.",
      model: "e2e-model",
      tools: [getWeather],
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: alice, useResponses: true }),
    });

    const start = await alice.responses.create({
      model: "e2e-model",
      input: "Remember the code word: kiwi.",
    });
    const chained = await runner.run(agent, "What's the weather in Paris?", { previousResponseId: start.id });
    expect(chained.finalOutput).toBe("The weather: Foggy in Paris");
    // The SDK sent only new items each step; the gateway supplied the rest from the chain.
    const last = e2e.provider.requests.at(-1) as RecordedRequest;
    expect(transcriptOf(last)).toContain("kiwi");
    expect(transcriptOf(last)).toContain("What's the weather in Paris?");

    const conversation = await alice.conversations.create({
      items: [{ role: "user", content: "The code word is mango." }],
    });
    const inConversation = await runner.run(agent, "What's the weather in Paris?", {
      conversationId: conversation.id,
    });
    expect(inConversation.finalOutput).toBe("The weather: Foggy in Paris");
    expect(transcriptOf(e2e.provider.requests.at(-1) as RecordedRequest)).toContain("mango");
    const items = await alice.conversations.items.list(conversation.id, { order: "asc", limit: 100 });
    expect(items.data.map((i) => i.type)).toEqual([
      "message",
      "message",
      "message",
      "function_call",
      "function_call_output",
      "message",
    ]);
  });
});
