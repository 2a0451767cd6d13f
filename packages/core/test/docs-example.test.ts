// --- docs/core.md example: begin ---
import {
  createArgumentsValidator,
  createSentinelParser,
  findToolPolicyProblem,
  JSON_TOOL_CALL_FORMAT,
  renderToolManifest,
  type ToolPolicy,
} from "@proxy/core";
import { expect, it } from "vitest";

// 1. Your surface decodes its own wire tools into one canonical policy; core checks it (names,
//    duplicates, a forced tool that is not offered) and you word any problem in your error shape.
const policy: ToolPolicy = {
  tools: [
    {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      strict: false,
    },
  ],
  choice: { type: "auto" },
  parallel: true,
};
if (findToolPolicyProblem(policy)) throw new Error("bad tools");
// 2. Teach your text-only model the sentinel format: put this in its system prompt.
const manifest = renderToolManifest(policy, JSON_TOOL_CALL_FORMAT);
// 3. Feed the model's streamed text through the parser, chunk by chunk, in any chunking.
const parser = createSentinelParser({
  tools: policy.tools,
  validator: createArgumentsValidator(policy.tools),
});
const events = [
  ...parser.push('Checking. <tool_call>{"name":"get_weather","argu'),
  ...parser.push('ments":"{\\"city\\":\\"Paris\\"}"}</tool_call>'),
  ...parser.flush(),
];
// --- docs/core.md example: end ---

it("the docs/core.md example works as documented", async () => {
  expect(manifest).toContain("<tool_call>");
  expect([...new Set(events.map((e) => e.type))]).toEqual([
    "text-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
  ]);
  expect(events.at(-1)).toMatchObject({
    type: "tool-call-end",
    name: "get_weather",
    arguments: '{"city":"Paris"}',
  });
  // Imported here: a static import would sort into the snippet.
  const { expectInCoreDocs } = await import("./support/doc-snippet.js");
  expectInCoreDocs(import.meta.url, "docs/core.md example");
});
