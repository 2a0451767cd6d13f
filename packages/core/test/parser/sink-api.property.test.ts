import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParserEvent, ParserSink } from "../../src/parser/index.js";
import { createSentinelParser } from "../../src/parser/index.js";
import { generatedMessage, hostileMessage } from "./message-arbitraries.js";
import { parserOptions, splitAt } from "./parser-harness.js";

const SEED = 20261127;
const options = [parserOptions(undefined, { maxBlockBytes: 48 }), parserOptions()];
const cuts = fc.array(fc.nat({ max: 4000 }), { maxLength: 12 });

/** Records what a sink gets, push by push, as the array API would have returned it. */
const recorder = () => {
  let current: ParserEvent[] = [];
  const sink: ParserSink = {
    text: (delta) => current.push({ type: "text-delta", delta }),
    event: (event) => current.push(event),
  };
  return {
    sink,
    take(): ParserEvent[] {
      const out = current;
      current = [];
      return out;
    },
  };
};

/** Each push and the flush, once through the array API and once through the sink API. */
const bothWays = (chunks: ReadonlyArray<string>, opts = options[1]) => {
  const arrays = createSentinelParser(opts as (typeof options)[number]);
  const sinks = createSentinelParser(opts as (typeof options)[number]);
  const rec = recorder();
  const viaArrays: ParserEvent[][] = [];
  const viaSink: ParserEvent[][] = [];
  for (const chunk of chunks) {
    viaArrays.push(arrays.push(chunk));
    sinks.pushTo(chunk, rec.sink);
    viaSink.push(rec.take());
  }
  viaArrays.push(arrays.flush());
  sinks.flushTo(rec.sink);
  viaSink.push(rec.take());
  return { viaArrays, viaSink };
};

describe("sentinel parser: the sink API (pushTo / flushTo)", () => {
  it("delivers, push by push, exactly the events push/flush return (generated and hostile input, random splits)", {
    timeout: 120_000,
  }, () => {
    const message = fc.oneof(
      generatedMessage().map((m) => m.message),
      hostileMessage,
    );
    fc.assert(
      fc.property(message, cuts, fc.constantFrom(...options), (text, cutPoints, opts) => {
        for (const chunks of [[...text], splitAt(text, cutPoints), splitAt(text, [1, 2, 3, 5, 8, 13])]) {
          const { viaArrays, viaSink } = bothWays(chunks, opts);
          expect(viaSink).toEqual(viaArrays);
        }
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it("answers a token-sized plain piece mid-line with one text call carrying that very piece", () => {
    const parser = createSentinelParser(options[1] as (typeof options)[number]);
    const rec = recorder();
    parser.pushTo("Hello", rec.sink);
    expect(rec.take()).toEqual([{ type: "text-delta", delta: "Hello" }]);
    const piece = " world";
    const seen: string[] = [];
    parser.pushTo(piece, { text: (t) => seen.push(t), event: () => expect.unreachable() });
    expect(seen).toEqual([piece]);
    expect(seen[0]).toBe(piece);
  });

  it("holds only a possible tag start and a high surrogate, as push does", () => {
    const { viaSink } = bothWays([
      "a <tool",
      "_cal",
      'l>{"name":"get_time","arguments":{}}</tool_call>',
      "x \ud83d",
      "\ude00",
    ]);
    expect(viaSink[0]).toEqual([{ type: "text-delta", delta: "a " }]);
    expect(viaSink[1]).toEqual([]);
    expect(viaSink[2]?.map((e) => e.type)).toEqual(["tool-call-start", "tool-call-delta", "tool-call-end"]);
    expect(viaSink[3]).toEqual([{ type: "text-delta", delta: "x " }]);
    expect(viaSink[4]).toEqual([{ type: "text-delta", delta: "\ud83d\ude00" }]);
  });
});
