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
  it("keeps a stray backslash after a lone high surrogate as written, in every chunking", () => {
    // The run before the invalid escape ends in a high surrogate: the commit point is before it,
    // whether the run arrives in one chunk or character by character.
    const events = expectSplitInvariant(
      '<tool_call>{"name":"write_file","arguments":{"a":"mgm{\ud83d\\ua"}}</tool_call>',
    );
    const end = events.find((e) => e.type === "tool-call-end");
    expect(end).toMatchObject({ repaired: true });
    expect(end?.type === "tool-call-end" && JSON.parse(end.arguments)).toEqual({ a: "mgm{\ud83d\\ua" });
  });

  it("decodes escapes of arguments written as a string, split anywhere", () => {
    const args = JSON.stringify({ path: "a.md", content: 'say "hi" \\ <tag> é 😀 \u0001 \n' });
    const events = expectSplitInvariant(
      `<tool_call>{"name":"write_file","arguments":${JSON.stringify(args)}}</tool_call>`,
    );
    const end = events.find((e) => e.type === "tool-call-end");
    expect(end?.type === "tool-call-end" && JSON.parse(end.arguments)).toEqual(JSON.parse(args));
  });

  it("takes arguments written as an object from the block text, raw control characters escaped", () => {
    // Arguments written as an object are a slice of the block, up to a raw newline or tab that the
    // validator escapes: from there on they differ from the block and are kept on their own.
    const first = '{"path":"a.md","content":"one\ttwo\nthree {x} <b> \\\\"}';
    const second = '{"path":"b.md","content":"plain"}';
    const block = (args: string) => `<tool_call>{"name":"write_file","arguments":${args}}</tool_call>`;
    const events = expectSplitInvariant(`Text {a} <b>\n${block(first)} and ${block(second)}`);
    const ends = events.filter((e) => e.type === "tool-call-end");
    expect(ends.map((e) => e.type === "tool-call-end" && e.arguments)).toEqual([
      first.replace("\t", "\\t").replace("\n", "\\n"),
      second,
    ]);
    expect(ends.map((e) => e.type === "tool-call-end" && e.raw)).toEqual([block(first), block(second)]);
  });
});
