/**
 * `pnpm demo`: the whole gateway on a machine with no credentials and no network. A scripted local
 * model provider stands in for OpenAI; the REAL codex binary talks to it; the gateway sits in front;
 * the official `openai` client does a complete tool round trip through it. It shows the default,
 * native tool mode (the client's tools reach the model as codex dynamic tools, called through its
 * own function calling); `pnpm demo prompt` shows prompt mode (tools taught in the prompt, the
 * calls parsed from the model's text). See docs/tool-modes.md.
 */
import {
  makeCodexHome,
  type RecordedRequest,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import OpenAI from "openai";
import { resolveConfig, startGateway } from "../src/index.js";

const mode = process.argv.includes("prompt") ? "prompt" : "native";
const step = (n: number, text: string) => console.log(`\n\x1b[1m${n}. ${text}\x1b[0m`);
const show = (label: string, value: unknown) =>
  console.log(`   ${label}: ${typeof value === "string" ? value : JSON.stringify(value)}`);

type Item = { type?: string; name?: string; call_id?: string; output?: unknown };
const itemsOf = (request: RecordedRequest) => (request.body.input ?? []) as Item[];
const ARGS = { city: "Paris", unit: "celsius" };
const ANSWER = {
  chunks: ["It is ", "18 °C and sunny ", "in Paris right now."],
  usage: { inputTokens: 220, outputTokens: 12 },
};

/** What the scripted "model" answers: a weather tool call first, a sentence once it saw the result. */
const model = (request: RecordedRequest) => {
  const transcript = JSON.stringify(request.body.input ?? "").replaceAll('\\"', '"');
  // Native: the tool result comes back as a function_call_output item; prompt: as rendered text.
  if (itemsOf(request).some((i) => i.type === "function_call_output")) return ANSWER;
  if (transcript.includes('[function_call_output call_id="call_')) return ANSWER;
  const offered = ((request.body.tools ?? []) as Item[]).some((t) => t.name === "get_weather");
  if (offered)
    return {
      chunks: ["Let me check."],
      items: [
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          name: "get_weather",
          arguments: JSON.stringify(ARGS),
        },
      ],
      itemsLast: true,
      usage: { inputTokens: 200, outputTokens: 30 },
    };
  const call = JSON.stringify({ name: "get_weather", arguments: JSON.stringify(ARGS) });
  return {
    chunks: ["Let me check.", `<tool_call>${call.slice(0, 25)}`, `${call.slice(25)}</tool_call>`],
    usage: { inputTokens: 200, outputTokens: 30 },
  };
};

const provider = await startScriptedModelProvider(model);
const home = await makeCodexHome(provider.url);
process.env.CODEX_HOME = home.path; // the codex child inherits the gateway's environment
const gateway = await startGateway(
  resolveConfig({
    env: { LOG_LEVEL: "error", ...(mode === "prompt" ? { PROXY_TOOL_MODE: "prompt" } : {}) },
    flags: { port: "0" },
  }),
);
console.log(
  mode === "native"
    ? "Native tool mode (the default): the tools go to the model's own function calling."
    : "Prompt mode (PROXY_TOOL_MODE=prompt): the tools are taught in the prompt and parsed from text.",
);

try {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "demo" });
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: "function",
      function: {
        name: "get_weather",
        description: "Current weather for a city",
        parameters: {
          type: "object",
          properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
          required: ["city"],
        },
      },
    },
  ];
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: "user", content: "What's the weather in Paris?" },
  ];

  step(1, `POST ${gateway.url}/v1/chat/completions with one tool (get_weather)`);
  show("user", messages[0]?.content);
  const first = await client.chat.completions.create({ model: "scripted-model", messages, tools });
  const choice = first.choices[0]!;
  step(
    2,
    mode === "native"
      ? "The model called the tool through its own function calling; the client got real tool_calls"
      : "The gateway parsed the model's <tool_call> text into real tool_calls",
  );
  show("finish_reason", choice.finish_reason);
  show("content", choice.message.content);
  for (const call of choice.message.tool_calls ?? [])
    if (call.type === "function")
      show(`tool_call ${call.id}`, `${call.function.name}(${call.function.arguments})`);

  step(3, "The client runs the tool and sends the result back");
  messages.push(choice.message);
  for (const call of choice.message.tool_calls ?? []) {
    const result = JSON.stringify({ city: "Paris", temperature_c: 18, sky: "sunny" });
    show(`result for ${call.id}`, result);
    messages.push({ role: "tool", tool_call_id: call.id, content: result });
  }

  step(4, "Streaming the final answer");
  const stream = await client.chat.completions.create({
    model: "scripted-model",
    messages,
    tools,
    stream: true,
    stream_options: { include_usage: true },
  });
  process.stdout.write("   assistant: ");
  for await (const chunk of stream) {
    process.stdout.write(chunk.choices[0]?.delta.content ?? "");
    if (chunk.usage) process.stdout.write(`\n   usage: ${JSON.stringify(chunk.usage)}`);
  }
  console.log();

  step(5, "What the model provider received on the second turn (sent by real codex)");
  const last = provider.requests.at(-1);
  const offered = (last?.body.tools ?? []) as Item[];
  show(
    "the client's tool offered to the model as a function",
    offered.some((t) => t.name === "get_weather"),
  );
  const output = itemsOf(last ?? ({ body: {} } as RecordedRequest)).find(
    (i) => i.type === "function_call_output",
  );
  const rendered = /\[function_call_output call_id="call_[^\]]*\]/.exec(
    JSON.stringify(last?.body.input ?? []).replaceAll('\\"', '"'),
  )?.[0];
  show(
    "the tool result",
    output ? `a function_call_output item: ${String(output.output)}` : (rendered ?? "(missing)"),
  );
  console.log("\nDemo complete: tools sent → tool_calls received → tool result sent → final answer.");
} finally {
  await gateway.shutdown("demo finished");
  await provider.close();
  await home.cleanup();
}
