import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { toolCallingMiddleware } from "@proxy/ai-sdk";
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";

// Any OpenAI-compatible server whose model only writes text: llama.cpp, vLLM, Ollama, LM Studio…
const local = createOpenAICompatible({
  name: "local",
  baseURL: process.env.OPENAI_BASE_URL ?? "http://127.0.0.1:8080/v1",
});

// The middleware teaches the tools in the system prompt and reads the calls back out of the text.
const model = wrapLanguageModel({
  model: local(process.env.MODEL ?? "qwen2.5-7b-instruct"),
  middleware: toolCallingMiddleware({ parallelToolCalls: false, strict: true }),
});

const result = await generateText({
  model,
  tools: {
    weather: tool({
      description: "The current weather in a city",
      inputSchema: jsonSchema<{ city: string }>({
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      }),
      execute: async ({ city }) => ({ city, sky: "sunny", celsius: 21 }),
    }),
  },
  stopWhen: stepCountIs(5),
  prompt: "What is the weather in Lisbon?",
});

for (const step of result.steps)
  console.log(
    step.finishReason,
    step.toolCalls.map((c) => `${c.toolName} ${JSON.stringify(c.input)}`),
  );
console.log(result.text);
