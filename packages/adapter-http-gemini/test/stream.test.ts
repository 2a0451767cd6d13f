import { readFileSync, writeFileSync } from "node:fs";
import { GatewayError } from "@proxy/core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGeminiEncoder, foldChunks } from "../src/response-encoder.js";
import {
  post,
  sseData,
  startGateway,
  type TestGateway,
  toolBlock,
  WEATHER_DECLARATION,
} from "./support/gateway.js";

const fixture = (name: string) => new URL(`./__fixtures__/${name}`, import.meta.url);
/** Golden transcripts; `UPDATE_GOLDEN=1` rewrites them. */
const golden = (name: string, text: string) => {
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(fixture(name), text);
  expect(text).toBe(readFileSync(fixture(name), "utf8"));
};

const splits = (text: string) =>
  fc.array(fc.nat({ max: text.length }), { maxLength: 8 }).map((cuts) => {
    const points = [...new Set([0, ...cuts, text.length])].sort((a, b) => a - b);
    return points.slice(1).map((end, i) => text.slice(points[i], end));
  });

describe("stream encoder properties", () => {
  it("folded chunks are the same answer however the deltas were split", () => {
    const meta = { modelVersion: "m", responseId: "r" };
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), (thought, text) =>
        fc.assert(
          fc.property(splits(thought), splits(text), (thoughtPieces, textPieces) => {
            const enc = createGeminiEncoder({ meta, includeThoughts: true });
            const chunks = [
              ...thoughtPieces.flatMap((delta) => enc.push({ type: "reasoning-delta", delta })),
              ...textPieces.flatMap((delta) => enc.push({ type: "text-delta", delta })),
            ];
            chunks.push(enc.end({ type: "finish", finish: { reason: "stop", raw: undefined } })!);
            const parts = [
              ...(thought === "" ? [] : [{ text: thought, thought: true }]),
              ...(text === "" ? [] : [{ text }]),
            ];
            expect(foldChunks(meta, chunks).candidates[0]).toEqual({
              content: { role: "model", parts: parts.length === 0 ? [{ text: "" }] : parts },
              finishReason: "STOP",
              index: 0,
            });
          }),
          { numRuns: 10 },
        ),
      ),
      { numRuns: 100 },
    );
  });
});

describe("SSE at the wire (golden transcripts)", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway((request) => {
      const input = JSON.stringify(request.input);
      if (input.includes("stop")) return { chunks: ["one two EN", "D three"] };
      if (input.includes("fail"))
        return {
          chunks: ["partial ", "more"],
          errorAfterChunks: 1,
          error: new GatewayError("backend_error", "The model crashed."),
        };
      if (input.includes("think")) return { chunks: ["done"], reasoning: ["pondering"] };
      return {
        chunks: ["Let me check. ", ...toolBlock("get_weather", { city: "Paris" }).match(/.{1,9}/gs)!],
      };
    });
  });
  afterAll(() => gw.close());
  const stream = (text: string, extra: object = {}) =>
    post(gw, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", {
      contents: [{ role: "user", parts: [{ text }] }],
      tools: [{ functionDeclarations: [WEATHER_DECLARATION] }],
      ...extra,
    });

  it("text then a whole functionCall, only data: lines, no keep-alive, STOP and usage last", async () => {
    const res = await stream("weather?");
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(sseData(res.text)).toHaveLength(3);
    golden("text-and-call.sse", res.text);
  });

  it("a stop sequence cuts the text across deltas and ends with STOP", async () => {
    const res = await stream("stop please", { generationConfig: { stopSequences: ["END"] } });
    const chunks = sseData(res.text) as Array<{
      candidates: Array<{ content: { parts: Array<{ text: string }> } }>;
    }>;
    expect(chunks.map((c) => c.candidates[0]!.content.parts.map((p) => p.text).join("")).join("")).toBe(
      "one two ",
    );
    golden("stop-sequence.sse", res.text);
  });

  it("thought parts only with includeThoughts", async () => {
    const shown = await stream("think", { generationConfig: { thinkingConfig: { includeThoughts: true } } });
    expect(shown.text).toContain('{"text":"pondering","thought":true}');
    const hidden = await stream("think");
    expect(hidden.text).not.toContain("pondering");
  });

  it("a failure mid-stream is one data: line holding Google's error object", async () => {
    const res = await stream("fail");
    const chunks = sseData(res.text);
    expect(chunks.at(-1)).toEqual({
      error: { code: 502, message: "The model crashed.", status: "INTERNAL" },
    });
    golden("error-mid-stream.sse", res.text);
  });

  it("without alt=sse the answer is the JSON array of the same chunks", async () => {
    const res = await post(gw, "/v1/models/gemini-2.5-flash:streamGenerateContent", {
      contents: [{ role: "user", parts: [{ text: "weather?" }] }],
      tools: [{ functionDeclarations: [WEATHER_DECLARATION] }],
    });
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const sse = await stream("weather?");
    // Two requests: only their ids and signatures differ.
    const strip = (u: unknown) =>
      JSON.parse(
        JSON.stringify(u, (k, v) => (k === "responseId" || k === "thoughtSignature" || k === "id" ? "*" : v)),
      );
    expect(strip(JSON.parse(res.text))).toEqual(strip(sseData(sse.text)));
  });
});
