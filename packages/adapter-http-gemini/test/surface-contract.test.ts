import { describeSurfaceContract } from "@proxy/http-surface/testing";
import { createGeminiApp, GEMINI_SURFACE } from "../src/index.js";

describeSurfaceContract({
  profile: GEMINI_SURFACE,
  createApp: createGeminiApp,
  path: (stream) =>
    stream ? "/models/gemini-test:streamGenerateContent?alt=sse" : "/models/gemini-test:generateContent",
  body: () => ({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
  // A stream ends with a chunk carrying a finishReason, or with one `data:` line holding the error body.
  terminals: (sse) =>
    sse
      .split("\n\n")
      .filter((frame) => frame.trim() !== "")
      .map((frame) => {
        const data = /^data: (.*)$/.exec(frame)?.[1];
        if (data === undefined) throw new Error(`not a single data line: ${JSON.stringify(frame)}`);
        return data;
      })
      .flatMap((data) => {
        const chunk = JSON.parse(data) as { error?: unknown; candidates?: Array<{ finishReason?: string }> };
        if (chunk.error !== undefined) return [`error:${data}`];
        return chunk.candidates?.some((c) => c.finishReason !== undefined) ? ["finish"] : [];
      }),
  errorTerminal: (expected) => `error:${JSON.stringify(expected.body)}`,
});
