import { describe, expect, it } from "vitest";
import { checkMessagesStream, type SseFrame } from "../src/testing/index.js";

const frame = (data: Record<string, unknown>, event = data.type as string): SseFrame => ({
  event,
  data: JSON.stringify(data),
});
const start = frame({
  type: "message_start",
  message: {
    id: "msg_1",
    model: "m",
    content: [],
    stop_reason: null,
    usage: { input_tokens: 1, output_tokens: 0 },
  },
});
const text = (index: number) =>
  frame({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
const delta = (index: number, d: Record<string, unknown>) =>
  frame({ type: "content_block_delta", index, delta: d });
const stop = (index: number) => frame({ type: "content_block_stop", index });
const end = [
  frame({
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 3 },
  }),
  frame({ type: "message_stop" }),
];

/** The validator the goldens and properties rely on must reject each broken rule. */
describe("the Messages stream grammar checker", () => {
  it("accepts a well-formed stream and folds it", () => {
    const checked = checkMessagesStream([
      start,
      text(0),
      delta(0, { type: "text_delta", text: "hi" }),
      stop(0),
      ...end,
    ]);
    expect(checked).toMatchObject({ kind: "message", message: { content: [{ type: "text", text: "hi" }] } });
  });

  const BROKEN: ReadonlyArray<readonly [string, SseFrame[]]> = [
    ["a data-only frame", [{ event: undefined, data: start.data }, ...end]],
    ["no message_start", [text(0), stop(0), ...end]],
    ["an index gap", [start, text(1), stop(1), ...end]],
    ["interleaved blocks", [start, text(0), text(1), stop(1), stop(0), ...end]],
    [
      "a delta of the wrong kind",
      [start, text(0), delta(0, { type: "input_json_delta", partial_json: "{}" }), stop(0), ...end],
    ],
    [
      "tool input that is not JSON",
      [
        start,
        frame({
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "toolu_1", name: "x", input: {} },
        }),
        delta(0, { type: "input_json_delta", partial_json: '{"a":' }),
        stop(0),
        ...end,
      ],
    ],
    [
      "message_delta without usage",
      [start, frame({ type: "message_delta", delta: { stop_reason: "end_turn" } }), end[1]!],
    ],
    ["a block left open", [start, text(0), ...end]],
    ["no message_stop", [start, end[0]!]],
    ["two message_delta", [start, end[0]!, ...end]],
    [
      "an event after error",
      [start, frame({ type: "error", error: { type: "api_error", message: "x" } }), end[1]!],
    ],
  ];
  for (const [what, frames] of BROKEN)
    it(`rejects ${what}`, () => expect(() => checkMessagesStream(frames)).toThrow());
});
