import { describe, expect, it } from "vitest";
import { problemOf, textOf } from "../src/peer/peer-check.js";

const sse = (deltas: ReadonlyArray<Record<string, unknown>>) =>
  `${deltas.map((d) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: d }] })}\n\n`).join("")}data: [DONE]\n\n`;

describe("the peer bench's response check", () => {
  it("accepts the exact text, streamed or not, and refuses anything else", () => {
    const json = JSON.stringify({ choices: [{ message: { content: textOf(3) } }] });
    expect(problemOf({ stream: false, text: textOf(3) }, 200, json, true)).toBeUndefined();
    expect(problemOf({ stream: false, text: textOf(4) }, 200, json, true)).toMatch(/text/);
    expect(problemOf({ stream: false, text: textOf(4) }, 200, json, false)).toMatch(/w3/);
    expect(problemOf({ stream: false, text: textOf(3) }, 502, "{}", false)).toMatch(/status 502/);
    const stream = sse([{ content: "w0 " }, { content: "w1 " }]);
    expect(problemOf({ stream: true, text: textOf(2) }, 200, stream, true)).toBeUndefined();
    expect(
      problemOf({ stream: true, text: textOf(2) }, 200, stream.replace("data: [DONE]\n\n", ""), false),
    ).toMatch(/DONE/);
  });

  it("accepts one get_weather call with the scripted arguments and no sentinel text", () => {
    const call = (args: string, content = "Checking. ") =>
      sse([
        { content },
        { tool_calls: [{ index: 0, function: { name: "get_weather", arguments: "" } }] },
        { tool_calls: [{ index: 0, function: { arguments: args } }] },
      ]);
    expect(problemOf({ stream: true, tool: true }, 200, call('{"city":"Paris"}'), true)).toBeUndefined();
    expect(problemOf({ stream: true, tool: true }, 200, call('{"city":"Rome"}'), true)).toMatch(/arguments/);
    expect(
      problemOf({ stream: true, tool: true }, 200, call('{"city":"Paris"}', "<tool_call>"), false),
    ).toMatch(/sentinel/);
  });
});
