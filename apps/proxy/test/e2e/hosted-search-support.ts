import type { RecordedRequest, ScriptedResponse } from "./e2e-gateway.js";

/** The answer the scripted model writes after its search: two cited pages, one cited twice. */
export const SEARCH_ANSWER =
  "Oslo is sunny today, per [Yr](https://www.yr.no/oslo) and [Met Norway](https://www.met.no/en). Yr again: https://www.yr.no/oslo.";
export const SEARCH_QUERY = "weather oslo today";

/** The hosted tools codex offered the model in one request (everything but function tools). */
export const hostedToolsOf = (r: RecordedRequest | undefined) =>
  ((r?.body.tools ?? []) as Array<{ type?: string }>).filter((t) => t.type !== "function");

const offersSearch = (r: RecordedRequest) => hostedToolsOf(r).some((t) => t.type === "web_search");

/**
 * The scripted model: searches the web (a `web_search_call`, streamed as OpenAI streams it) and
 * answers with links when codex offers it `web_search`; answers "no search" otherwise.
 */
export const searchingModel = (r: RecordedRequest): ScriptedResponse =>
  offersSearch(r)
    ? {
        reasoning: "I should look this up.",
        webSearches: [{ id: `ws_${r.index}`, query: SEARCH_QUERY, sources: ["https://www.yr.no/oslo"] }],
        chunks: [SEARCH_ANSWER.slice(0, 40), SEARCH_ANSWER.slice(40)],
      }
    : { text: "no search" };
