import { describeSurfaceContract } from "@proxy/http-surface/testing";
import { CHAT_SURFACE, createChatCompletionsApp } from "../src/index.js";
import { sseData } from "./support/gateway.js";

describeSurfaceContract({
  profile: CHAT_SURFACE,
  createApp: createChatCompletionsApp,
  path: "/chat/completions",
  body: (stream) => ({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream }),
  terminals: (sse) =>
    sseData(sse)
      .filter((d) => d !== "[DONE]")
      .map(
        (d) =>
          JSON.parse(d) as { error?: { code: string }; choices?: Array<{ finish_reason: string | null }> },
      )
      .flatMap((d) =>
        d.error !== undefined ? [`error:${d.error.code}`] : d.choices?.[0]?.finish_reason ? ["finish"] : [],
      ),
});
