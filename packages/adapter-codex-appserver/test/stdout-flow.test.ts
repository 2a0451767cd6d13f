import { afterEach, describe, expect, it, vi } from "vitest";
import { createStdoutFlow } from "../src/transport/stdout-flow.js";

const limits = { perTurnBytes: 1_000, perProcessBytes: 2_500, stalledReaderMs: 1_000 };

/** A flow over a stream that records whether it is paused. */
const flowOver = () => {
  const stream = {
    paused: false,
    pause: () => (stream.paused = true),
    resume: () => (stream.paused = false),
  };
  let now = 0;
  const flow = createStdoutFlow(stream, limits, () => now);
  return { stream, flow, advance: (ms: number) => (now += ms) };
};

afterEach(() => {
  vi.useRealTimers();
});

describe("backpressure on codex's stdout", () => {
  it("pauses while one reading turn holds more than its share, and resumes at half of it", () => {
    const { stream, flow } = flowOver();
    const turn = flow.open(() => {});
    turn.reading();
    turn.add(1_000);
    expect(stream.paused).toBe(false);
    turn.add(1);
    expect(stream.paused).toBe(true);
    turn.take(400);
    expect(stream.paused).toBe(true); // 601 held: above half
    turn.take(101);
    expect(stream.paused).toBe(false);
    expect(flow.held()).toBe(500);
    turn.close();
    expect(flow.held()).toBe(0);
  });

  it("pauses while all turns together hold more than the process's share, resuming at three quarters", () => {
    const { stream, flow } = flowOver();
    const turns = [flow.open(() => {}), flow.open(() => {}), flow.open(() => {})];
    for (const t of turns) {
      t.reading();
      t.add(900);
    }
    expect(stream.paused).toBe(true); // 2,700 > 2,500, none over its own share
    turns[0]?.take(600);
    expect(stream.paused).toBe(true); // 2,100 > 1,875
    turns[0]?.close();
    expect(stream.paused).toBe(false); // 1,800
  });

  it("a turn that has not begun reading never pauses: it waits for codex's answers through the same pipe", () => {
    const { stream, flow } = flowOver();
    const turn = flow.open(() => {});
    turn.add(5_000);
    expect(stream.paused).toBe(false);
    expect(flow.held()).toBe(0);
    turn.reading();
    expect(stream.paused).toBe(true);
    turn.close();
    expect(stream.paused).toBe(false);
  });

  it("while paused, a turn whose reader took nothing for stalledReaderMs is stopped; one that reads is not", () => {
    vi.useFakeTimers();
    const { stream, flow, advance } = flowOver();
    const stalled: string[] = [];
    const slow = flow.open(() => {
      stalled.push("slow");
      slow.close();
    });
    const reading = flow.open(() => stalled.push("reading"));
    slow.reading();
    reading.reading();
    reading.add(100);
    slow.add(2_000);
    expect(stream.paused).toBe(true);
    for (let ms = 0; ms < 900; ms += 100) {
      advance(100);
      reading.take(0); // pulls: progress, even with nothing new
      vi.advanceTimersByTime(100);
    }
    expect(stalled).toEqual([]);
    advance(200);
    reading.take(0);
    vi.advanceTimersByTime(250);
    expect(stalled).toEqual(["slow"]);
    expect(stream.paused).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
