import { describeSurfaceContract } from "@proxy/http-surface/testing";
import { createEchoApp, ECHO_SURFACE } from "../src/index.js";

describeSurfaceContract({
  profile: ECHO_SURFACE,
  createApp: createEchoApp,
  path: "/complete",
  body: (stream) => ({ model: "echo-test", prompt: "hi", stream }),
  terminals: (sse) =>
    sse
      .split("\n\n")
      .flatMap((frame) => {
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        return data === undefined ? [] : [JSON.parse(data) as { done?: true; error?: { code: string } }];
      })
      .flatMap((event) => (event.done ? ["finish"] : event.error ? [`error:${event.error.code}`] : [])),
});
