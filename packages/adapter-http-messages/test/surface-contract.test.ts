import { describeSurfaceContract } from "@proxy/http-surface/testing";
import { createMessagesApp, MESSAGES_SURFACE } from "../src/index.js";

/** Each SSE frame's event name and data. */
const frames = (sse: string) =>
  sse.split("\n\n").flatMap((frame) => {
    const event = /^event: (.*)$/m.exec(frame)?.[1];
    const data = /^data: (.*)$/m.exec(frame)?.[1];
    return event === undefined ? [] : [{ event, data: data ?? "" }];
  });

describeSurfaceContract({
  profile: MESSAGES_SURFACE,
  createApp: createMessagesApp,
  path: "/messages",
  body: (stream) => ({
    model: "claude-test",
    // Far above the write-timeout checks' 32 MiB answers, so max_tokens never ends them first.
    max_tokens: 100_000_000,
    messages: [{ role: "user", content: "hi" }],
    stream,
  }),
  // A stream ends with `message_stop`, or with an `error` event carrying the error body.
  terminals: (sse) =>
    frames(sse).flatMap(({ event, data }) =>
      event === "message_stop" ? ["finish"] : event === "error" ? [`error:${data}`] : [],
    ),
  errorTerminal: (expected) => `error:${JSON.stringify(expected.body)}`,
});
