import { describeSurfaceContract } from "@proxy/http-surface/testing";
import { createResponsesApp, RESPONSES_SURFACE } from "../src/index.js";

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

describeSurfaceContract({
  profile: RESPONSES_SURFACE,
  createApp: createResponsesApp,
  path: "/responses",
  body: (stream) => ({ model: "gpt-test", input: "hi", stream }),
  terminals: (sse) =>
    sse
      .split("\n\n")
      .map((frame) => /^data: (.*)$/m.exec(frame)?.[1])
      .flatMap((data) =>
        data === undefined
          ? []
          : [JSON.parse(data) as { type: string; response?: { error?: { code: string } } }],
      )
      .filter((event) => TERMINAL.has(event.type))
      .map((event) => (event.type === "response.failed" ? `error:${event.response?.error?.code}` : "finish")),
});
