// --- docs/core.md hermes recipe: begin ---
import {
  blockFormatsReading,
  createArgumentsValidator,
  createSentinelParser,
  jsonBlockFormat,
  renderBackendRequest,
  type ToolPolicy,
} from "@proxy/core";
import { expect, it } from "vitest";

const policy: ToolPolicy = {
  tools: [
    {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      strict: false,
    },
  ],
  choice: { type: "auto" },
  parallel: true,
};
// Hermes and Qwen chat templates write `arguments` as an object and wrap results in
// <tool_response>: teach exactly that, and render earlier calls and results the same way.
const hermes = jsonBlockFormat({ arguments: "object" });
const { request } = renderBackendRequest(
  {
    model: "qwen3",
    items: [
      { type: "message", role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
      { type: "tool-call", callId: "c1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "tool-result", callId: "c1", output: "18 C, sunny" },
    ],
  },
  policy,
  hermes,
  { toolResult: (_callId, output) => `<tool_response>\n${output}\n</tool_response>` },
);
// The model's reply, in any chunking: the block on lines of its own, arguments as an object.
const parser = createSentinelParser({
  tools: policy.tools,
  validator: createArgumentsValidator(policy.tools),
  formats: blockFormatsReading(hermes),
});
const events = [
  ...parser.push('<tool_call>\n{"name": "get_weather", "arguments": {"ci'),
  ...parser.push('ty": "Lyon"}}\n</tool_call>'),
  ...parser.flush(),
];
// --- docs/core.md hermes recipe: end ---

it("the docs/core.md hermes recipe works as documented", async () => {
  expect(request.instructions).toContain(
    '<tool_call>{"name":"<function name>","arguments":<the arguments object>}</tool_call>',
  );
  expect(request.instructions).toContain(
    '<tool_call>{"name":"get_weather","arguments":{"city":"<city>"}}</tool_call>',
  );
  expect(request.instructions).toContain(
    "Results come back as: <tool_response>\n<the result, as a JSON string>\n</tool_response>",
  );
  expect(request.history.at(-1)).toEqual({
    role: "assistant",
    content: [
      { type: "text", text: '<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>' },
    ],
  });
  expect(request.input).toEqual([{ type: "text", text: "<tool_response>\n18 C, sunny\n</tool_response>" }]);
  expect(events.map((e) => e.type)).toEqual([
    "tool-call-start",
    "tool-call-delta",
    "tool-call-delta",
    "tool-call-end",
  ]);
  expect(events.at(-1)).toMatchObject({
    type: "tool-call-end",
    name: "get_weather",
    arguments: '{"city": "Lyon"}',
  });
  // Imported here: a static import would sort into the snippet.
  const { expectInCoreDocs } = await import("./support/doc-snippet.js");
  expectInCoreDocs(import.meta.url, "docs/core.md hermes recipe");
});
