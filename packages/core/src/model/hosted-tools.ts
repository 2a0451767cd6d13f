/**
 * Tools the model provider runs itself (OpenAI's hosted `web_search`, Anthropic's `web_search_*`
 * server tools, Gemini's `googleSearch`): a surface that reads one asks the backend for it here,
 * and a backend that cannot give it refuses the turn naming `tool` at `param`. Nothing here runs
 * on the gateway's host.
 */
export interface HostedWebSearch {
  /** The tool as the client named it (`web_search`, `web_search_20250305`, `googleSearch`, `web_search_options`). */
  readonly tool: string;
  /** Where the request asked for it, in the surface's own terms (`tools[2]`), for errors naming it. */
  readonly param: string;
  /** Messages' `max_uses`: the searches the model may make in the turn. */
  readonly maxUses?: number | undefined;
  /** Only pages of these domains (Messages `allowed_domains`, Responses `filters.allowed_domains`). */
  readonly allowedDomains?: ReadonlyArray<string> | undefined;
  /** Never pages of these domains (Messages `blocked_domains`). */
  readonly blockedDomains?: ReadonlyArray<string> | undefined;
  /** How much of the pages the model reads (Responses `search_context_size`). */
  readonly contextSize?: "low" | "medium" | "high" | undefined;
}

export interface HostedTools {
  readonly webSearch?: HostedWebSearch | undefined;
}

/** What a hosted search did, in the Responses API's terms (`web_search_call.action`). */
export type WebSearchAction =
  | {
      readonly type: "search";
      readonly query?: string | undefined;
      readonly queries?: ReadonlyArray<string> | undefined;
    }
  | { readonly type: "open_page"; readonly url?: string | undefined }
  | {
      readonly type: "find_in_page";
      readonly url?: string | undefined;
      readonly pattern?: string | undefined;
    };
