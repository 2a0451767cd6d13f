import { GatewayError } from "../errors/gateway-error.js";
import type { TurnRequest } from "../model/conversation.js";
import type { TextBackend } from "../ports/text-backend.js";
import type { RenderedPrompt } from "../prompt/render-history.js";
import { chooseToolMode, renderForMode } from "./native-turn.js";
import type { TurnSettings } from "./turn-settings.js";

/**
 * A compaction turn runs as rendered (no tools: a tool call there makes codex loop), and carries
 * the conversation as its ordinary turns render it, with the client's tools and in their mode, so a
 * backend holding that conversation's thread can find it (see `BackendRequest.compaction`).
 */
export const withCompaction = (
  rendered: RenderedPrompt,
  backend: Pick<TextBackend, "name" | "capabilities" | "capabilitiesFor">,
  request: TurnRequest,
  settings: TurnSettings,
): RenderedPrompt => {
  const compaction = request.compaction;
  if (compaction === undefined) return rendered;
  // As runTurn defaults the ordinary turns' policy.
  const tools = compaction.tools.parallelDefaulted
    ? { ...compaction.tools, parallel: settings.parallelToolCalls }
    : compaction.tools;
  const mode = chooseToolMode(settings.toolMode, backend, tools, request.model);
  if (mode instanceof GatewayError) return rendered;
  const ordinary = renderForMode(mode, request, tools, settings).request;
  return {
    ...rendered,
    request: {
      ...rendered.request,
      compaction: {
        keep: compaction.keep,
        instructions: ordinary.instructions,
        history: ordinary.history,
        ...(ordinary.tools === undefined ? {} : { tools: ordinary.tools }),
      },
    },
  };
};
