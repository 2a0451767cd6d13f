import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";
import { calmestStall, postJson } from "./support.js";

const BOUND_MS = 250;
// As many and as long as the gateway allows, all sharing a 1,000-character start the answer keeps
// almost completing: the old matcher compared every sequence against every held tail.
const stops = Array.from({ length: 256 }, (_, i) => `${"x".repeat(1000)}<${i}>`);
// 300 deltas of "xxxx", then the end of sequence 7.
const answer = [...Array.from({ length: 300 }, () => "xxxx"), "<7> and more"];

describe("stop_sequences cost is linear in the text (real gateway, in-process loop monitor)", {
  timeout: 120_000,
}, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await gatewayOver(createScriptedBackend(() => ({ chunks: answer })));
  });
  afterAll(() => g?.close());

  it("256 sequences of 1,000+ characters over a 300-delta answer: matched, no stall", async () => {
    const body = JSON.stringify({
      model: "m",
      max_tokens: 4096,
      stop_sequences: stops,
      messages: [{ role: "user", content: "go" }],
    });
    const { worst, result } = await calmestStall(async () => {
      const res = await postJson(`${g.url}/v1/messages`, body);
      return {
        status: res.status,
        json: (await res.json()) as { stop_reason: string; content: Array<{ text: string }> },
      };
    }, BOUND_MS);
    expect(result.status).toBe(200);
    expect(result.json.stop_reason).toBe("stop_sequence");
    // 1,200 x's, of which the last 1,000 belong to the sequence.
    expect(result.json.content[0]?.text).toBe("x".repeat(200));
    expect(worst).toBeLessThan(BOUND_MS);
  });

  it("more sequences than the cap is a 400 naming stop_sequences, before any turn", async () => {
    const res = await postJson(`${g.url}/v1/messages`, {
      model: "m",
      max_tokens: 16,
      stop_sequences: Array.from({ length: 100_000 }, (_, i) => `s${i}`),
      messages: [{ role: "user", content: "go" }],
    });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { type: string; message: string } };
    expect(json.error.type).toBe("invalid_request_error");
    expect(json.error.message).toContain("'stop_sequences'");
  });
});
