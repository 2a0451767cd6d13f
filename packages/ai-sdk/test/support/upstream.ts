import type { UpstreamTurn } from "@proxy/adapter-openai-compatible/testing";

/** A non-streamed chat completion (the scripted server streams unless told to answer with a body). */
export const completion = (text: string): UpstreamTurn => ({
  raw: {
    contentType: "application/json",
    body: JSON.stringify({
      id: "chatcmpl-upstream",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "upstream-model",
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 },
    }),
  },
});
