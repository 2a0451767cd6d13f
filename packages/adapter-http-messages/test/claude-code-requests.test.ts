import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkMessagesStream, parseSseFrames } from "../src/testing/index.js";
import { post, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, toolBlock } from "./support/scripts.js";

/** Request bodies and message tails Claude Code 2.1.330 really sent (test/__fixtures__/claude-code). */
const capture = (name: string) =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/claude-code/${name}.json`, import.meta.url), "utf8"));
const HEADERS = {
  "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
  "x-api-key": "test",
};

describe("Claude Code's requests are accepted as sent", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway([
      { chunks: fragments(`I will run it. ${toolBlock("Bash", { command: "echo hi" })}`) },
    ]);
  });
  afterAll(() => gateway?.close());

  const send = async (body: unknown) => {
    const res = await post(gateway, body, { path: "/v1/messages?beta=true", headers: HEADERS });
    expect(res.status, res.text).toBe(200);
    return { res, seen: gateway.backend.requests.at(-1)! };
  };

  it("opus-5-5 shape: system blocks, a system-role message with output_config, deferred tools held back", async () => {
    const { res, seen } = await send(capture("opus-first-request"));
    const checked = checkMessagesStream(parseSseFrames(res.text));
    expect(checked.kind === "message" && checked.message.content.at(-1)).toMatchObject({
      type: "tool_use",
      name: "Bash",
      input: { command: "echo hi" },
    });
    expect(seen.instructions).toContain("You are a Claude agent");
    expect(seen.instructions).toMatch(/Bash/);
    expect(seen.instructions).not.toMatch(/DeferredToolPlaceholder/);
    // The system-role message after the prompt extends the system prompt; the prompt stays the input.
    expect(seen.instructions).toContain("# Environment");
    expect(JSON.stringify(seen.input)).toContain("Say hello");
    expect(seen.reasoningEffort).toBe("medium");
  });

  it("sonnet-4-5 shape: enabled thinking with a 31999 budget asks for high effort", async () => {
    const { seen } = await send(capture("sonnet-first-request"));
    expect(seen.reasoningEffort).toBe("high");
    expect(seen.instructions).toMatch(/Write/);
  });

  it("a follow-up with tool_use echoed and a string tool_result", async () => {
    const body = capture("sonnet-first-request");
    body.messages.push(...capture("followup-tool-result-tail"));
    const { seen } = await send(body);
    const input = JSON.stringify(seen.input);
    expect(input).toContain("call_0125528bf446cd750576fd98b7"); // Claude Code's `toolu_…` id
    expect(input).toContain("Bash completed with no output");
    expect(JSON.stringify(seen.history)).toContain("echo hi > marker.txt");
  });

  it("parallel results in one user turn and a thinking block with its signature", async () => {
    const body = capture("sonnet-first-request");
    body.messages.push(...capture("parallel-results").messages_tail);
    await send(body);
    const thinking = capture("sonnet-first-request");
    thinking.messages.push(...capture("thinking-roundtrip").next_request_messages_tail);
    const { seen } = await send(thinking);
    expect(JSON.stringify(seen.history)).not.toContain("c2lnbmF0dXJlLWZyb20td2lyZWNhcA==");
  });

  it("ToolSearch: a deferred tool is offered once a tool_reference names it", async () => {
    const search = capture("toolsearch");
    const body = capture("opus-first-request");
    body.tools.push(search.webfetch_tool);
    const before = await send(body);
    expect(before.seen.instructions).not.toMatch(/WebFetch WILL FAIL/);
    body.messages.push(...search.messages_tail);
    const after = await send(body);
    expect(after.seen.instructions).toMatch(/WebFetch WILL FAIL/);
    expect(JSON.stringify([after.seen.history, after.seen.input])).toContain("Tool loaded: WebFetch");
  });

  it("count_tokens with one of Claude Code's /context bodies", async () => {
    const res = await post(gateway, capture("count-tokens-one-tool"), {
      path: "/v1/messages/count_tokens?beta=true",
      headers: HEADERS,
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ input_tokens: expect.any(Number) });
    expect(res.headers.get("request-id")).toMatch(/^req_/);
  });

  it("a plain-string max_tokens continuation turn", async () => {
    const body = capture("sonnet-first-request");
    body.messages.push({ role: "assistant", content: "part one" });
    body.messages.push({ role: "user", content: "Output token limit hit. Resume directly." });
    const { seen } = await send(body);
    expect(JSON.stringify(seen.input)).toContain("Output token limit hit");
  });
});
