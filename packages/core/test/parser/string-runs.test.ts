import { describe, expect, it } from "vitest";
import { assertInvariants, normalize, parseChunks } from "./parser-harness.js";

/** Every chunking of `message` gives the events of the one-chunk parse. */
function expectSplitInvariant(message: string) {
  const whole = normalize(parseChunks([message]));
  expect(normalize(parseChunks([...message]))).toEqual(whole);
  for (let cut = 1; cut < message.length; cut += 1) {
    const events = parseChunks([message.slice(0, cut), message.slice(cut)]);
    assertInvariants(events);
    expect(normalize(events), `cut at ${cut}`).toEqual(whole);
  }
  return whole;
}

describe("sentinel parser: string runs inside a block", () => {
  it("closes a call cut off after a lone high surrogate at the same place in every chunking", () => {
    // The run before the invalid escape ends in a high surrogate: the commit point is before it,
    // whether the run arrives in one chunk or character by character.
    const events = expectSplitInvariant(
      '<tool_call>{"name":"write_file","arguments":{"a":"mgm{\ud83d\\ua"}}</tool_call>',
    );
    const end = events.find((e) => e.type === "call-end");
    expect(end).toMatchObject({ arguments: '{"a":"mgm{"}', repaired: true });
  });

  it("decodes escapes of arguments written as a string, split anywhere", () => {
    const args = JSON.stringify({ path: "a.md", content: 'say "hi" \\ <tag> é 😀 \u0001 \n' });
    const events = expectSplitInvariant(
      `<tool_call>{"name":"write_file","arguments":${JSON.stringify(args)}}</tool_call>`,
    );
    const end = events.find((e) => e.type === "call-end");
    expect(end?.type === "call-end" && JSON.parse(end.arguments)).toEqual(JSON.parse(args));
  });
});
