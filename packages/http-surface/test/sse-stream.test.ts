import { describe, expect, it } from "vitest";
import { createSseStream } from "../src/stream/sse-sink.js";

describe("an SSE stream's keep-alive", () => {
  it("keeps a stream alive from the moment it opens, before the surface wrote anything", async () => {
    const stream = createSseStream({
      onCancel: () => undefined,
      onStall: () => undefined,
      stallDelay: () => undefined,
      onWrite: () => undefined,
      signal: new AbortController().signal,
      keepAliveFrame: ": ping\n\n",
      keepAliveMs: 20,
    });
    const reader = stream.body.readable.getReader();
    const first = await reader.read();
    stream.close();
    expect(new TextDecoder().decode(first.value)).toBe(": ping\n\n");
  });
});
