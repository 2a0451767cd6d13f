import { describe, expect, it } from "vitest";
import { JSON_TOOL_CALL_FORMAT, jsonBlockFormat } from "../../src/formats/index.js";
import type { TurnRequest } from "../../src/model/conversation.js";
import type { ToolPolicy } from "../../src/model/tool-spec.js";
import type { PromptMessage } from "../../src/ports/text-backend.js";
import type { PromptTexts } from "../../src/prompt/prompt-texts.js";
import { renderBackendRequest, renderToolResult } from "../../src/prompt/render-history.js";
import { manifestRules, renderToolManifest } from "../../src/prompt/render-manifest.js";

const policy: ToolPolicy = {
  tools: [
    {
      name: "search",
      description: "Search the notes.",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      strict: false,
    },
  ],
  choice: { type: "auto" },
  parallel: false,
};

const turn: TurnRequest = {
  model: "m",
  items: [
    { type: "message", role: "user", content: [{ type: "text", text: "find cats" }] },
    { type: "tool-call", callId: "c1", name: "search", arguments: '{"q":"cats"}' },
    { type: "tool-result", callId: "c1", output: "3 notes" },
  ],
};

const PIPES = jsonBlockFormat({ start: "<|tool_call|>", end: "<|/tool_call|>" });
const textOf = (parts: ReadonlyArray<{ type: string; text?: string }>) =>
  parts.map((p) => p.text ?? "").join("");
const messageText = (m: PromptMessage | undefined) =>
  m !== undefined && "content" in m ? textOf(m.content) : "";

describe("prompt texts: the defaults are the gateway's own", () => {
  it("renders the same manifest and request with no texts as with empty texts", () => {
    expect(renderToolManifest(policy, JSON_TOOL_CALL_FORMAT, {})).toBe(
      renderToolManifest(policy, JSON_TOOL_CALL_FORMAT),
    );
    expect(renderBackendRequest(turn, policy, JSON_TOOL_CALL_FORMAT, {})).toEqual(
      renderBackendRequest(turn, policy, JSON_TOOL_CALL_FORMAT),
    );
    const manifest = renderToolManifest(policy, JSON_TOOL_CALL_FORMAT);
    expect(manifest.split("\n").slice(0, 2)).toEqual([
      "# Functions",
      "You can call the functions listed below. You cannot run anything yourself: the caller runs the function and sends you its result.",
    ]);
    expect(manifest).toContain(
      '- After your block(s), stop writing. Results come back as: [function_call_output call_id="<id>" output="<the result, as a JSON string>"]',
    );
  });
});

describe("prompt texts: a custom-delimiter format all through the prompt", () => {
  it("teaches, exemplifies and renders earlier calls in the configured delimiters", () => {
    const rendered = renderBackendRequest(turn, policy, PIPES);
    const { instructions, history, input } = rendered.request;
    expect(instructions).toContain('<|tool_call|>{"name":"<function name>"');
    expect(instructions).toContain(
      '<|tool_call|>{"name":"search","arguments":"{\\"q\\":\\"<q>\\"}"}<|/tool_call|>',
    );
    expect(instructions).not.toContain("<tool_call>");
    expect(history.map((m) => [m.role, messageText(m)])).toEqual([
      ["user", "find cats"],
      ["assistant", '<|tool_call|>{"name":"search","arguments":"{\\"q\\":\\"cats\\"}"}<|/tool_call|>'],
    ]);
    expect(textOf(input)).toBe('[function_call_output call_id="c1" output="3 notes"]');
  });
});

describe("prompt texts: replaced", () => {
  const toolResult = (id: string, output: string) =>
    `<tool_response id=${JSON.stringify(id)}>\n${output}\n</tool_response>`;

  it("the tool-result wording, in the history and in the rule that teaches it", () => {
    const { request } = renderBackendRequest(turn, policy, JSON_TOOL_CALL_FORMAT, { toolResult });
    expect(textOf(request.input)).toBe('<tool_response id="c1">\n3 notes\n</tool_response>');
    expect(request.instructions).toContain(
      'Results come back as: <tool_response id="<id>">\n<the result, as a JSON string>\n</tool_response>',
    );
    expect(request.instructions).not.toContain("function_call_output");
  });

  it("the intro and the rules, the default rules still at hand to edit", () => {
    const texts: PromptTexts = {
      intro: ["# Tools"],
      rules: (p, t) => [...manifestRules(p, t).filter((r) => !r.includes("code fence")), "- Be brief."],
    };
    const manifest = renderToolManifest(policy, JSON_TOOL_CALL_FORMAT, texts);
    expect(manifest.startsWith("# Tools\nTo call a function, write a tool-call block")).toBe(true);
    expect(manifest).not.toContain("code fence");
    expect(manifest).toContain("- Call at most ONE function per reply.\n- Be brief.\n");
    expect(manifest).toContain("- search — Search the notes.");
  });

  it("the whole manifest", () => {
    const manifest = (p: ToolPolicy, f: typeof JSON_TOOL_CALL_FORMAT) =>
      `Tools: ${p.tools.map((t) => t.name).join(", ")}. Write ${f.open}…${f.close}.`;
    const { request } = renderBackendRequest(turn, policy, PIPES, { manifest, baseInstructions: "Base." });
    expect(request.instructions).toBe("Base.\n\nTools: search. Write <|tool_call|>…<|/tool_call|>.");
  });

  it("placement in a message: a user message before the conversation, the system prompt without it", () => {
    const { request } = renderBackendRequest(turn, policy, JSON_TOOL_CALL_FORMAT, { placement: "message" });
    expect(request.instructions).not.toContain("# Functions");
    expect(request.history[0]?.role).toBe("user");
    expect(messageText(request.history[0])).toBe(renderToolManifest(policy, JSON_TOOL_CALL_FORMAT));
    expect(request.history.slice(1).map((m) => m.role)).toEqual(["user", "assistant"]);
    // No tools: no manifest message.
    const none = renderBackendRequest(turn, { ...policy, tools: [] }, JSON_TOOL_CALL_FORMAT, {
      placement: "message",
    });
    expect(none.request.history.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("the base prompt alone, as a string, as before", () => {
    const { request } = renderBackendRequest(turn, policy, JSON_TOOL_CALL_FORMAT, "Base.");
    expect(request.instructions.startsWith("Base.\n\n# Functions\n")).toBe(true);
    expect(renderToolResult("a", 'x"y')).toBe('[function_call_output call_id="a" output="x\\"y"]');
  });
});
