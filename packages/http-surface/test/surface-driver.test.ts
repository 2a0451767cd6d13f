import { type AssistantEvent, GatewayError } from "@proxy/core";
import type { AssistantBatch } from "@proxy/core/gateway";
import { describe, expect, it } from "vitest";
import { pumpTurn, type StreamEncoder, type TurnSink } from "../src/turn/drive.js";

/** A sink that records what was delivered, one entry per flush. */
const recordingSink = () => {
  let pending: string[] = [];
  const flushed: string[][] = [];
  const sink = {
    aborted: false,
    queue(frame: string): void {
      pending.push(frame);
    },
    flush() {
      flushed.push(pending);
      pending = [];
      return Promise.resolve();
    },
  };
  return { sink, flushed };
};
type Recording = ReturnType<typeof recordingSink>["sink"];

const framesOf: StreamEncoder<Recording> = {
  start: (sink) => sink.queue("start"),
  push(event, sink) {
    if (event.type === "text-delta" && event.delta === "boom") throw new Error("encoder bug");
    sink.queue(event.type === "text-delta" ? event.delta : event.type);
  },
  end: (terminal, sink) =>
    sink.queue(
      terminal.type === "finish" ? "finish" : `error:${terminal.error.kind}:${terminal.error.message}`,
    ),
};

const text = (delta: string): AssistantEvent => ({ type: "text-delta", delta });
const FINISH: AssistantEvent = { type: "finish", finish: { reason: "stop", raw: "stop" } };

async function* play(batches: ReadonlyArray<AssistantBatch>, thenThrow?: unknown) {
  for (const batch of batches) yield batch;
  if (thenThrow !== undefined) throw thenThrow;
}

describe("pumpTurn, the kit's one turn loop", () => {
  it("delivers one flush per batch; the terminal batch goes out with the closing frames", async () => {
    const { sink, flushed } = recordingSink();
    await pumpTurn(
      play([
        [text("a"), text("b")],
        [text("c"), FINISH],
      ]),
      framesOf,
      sink,
    );
    expect(flushed).toEqual([
      ["start", "a", "b"],
      ["c", "finish"],
    ]);
  });

  it("a thrown failure (broken iterator, encoder bug) still ends with the encoder's terminal error", async () => {
    const broken = recordingSink();
    await pumpTurn(
      play([[text("a")]], new GatewayError("backend_unavailable", "gone")),
      framesOf,
      broken.sink,
    );
    expect(broken.flushed.flat().at(-1)).toBe("error:backend_unavailable:gone");

    const buggy = recordingSink();
    await pumpTurn(play([[text("a"), text("boom"), text("c"), FINISH]]), framesOf, buggy.sink);
    expect(buggy.flushed.flat()).toEqual(["start", "a", "error:backend_error:encoder bug"]);
  });

  it("delivers nothing more once its sink is aborted, and stops pulling the turn", async () => {
    const { sink, flushed } = recordingSink();
    let pulled = 0;
    async function* turn() {
      for (;;) {
        pulled++;
        if (pulled === 2) (sink as TurnSink & { aborted: boolean }).aborted = true;
        yield [text(String(pulled))];
      }
    }
    await pumpTurn(turn(), framesOf, sink);
    expect(flushed).toEqual([["start", "1"]]);
    expect(pulled).toBe(2);
  });
});
