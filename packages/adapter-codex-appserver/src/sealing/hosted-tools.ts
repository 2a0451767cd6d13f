import type { HostedTools } from "@proxy/core";

/**
 * The thread `config` keys that give a thread the hosted tools its request asked for, on top of
 * the sealed config (which has them off): codex's `web_search = "live"` offers the model the
 * provider's `web_search` tool, run by the model provider, never on this host. `allowed_domains`
 * and the context size go to the tool as `filters.allowed_domains` / `search_context_size`
 * (`tools.web_search`, verified against codex 0.169); codex has no blocked domains or use limit.
 * A request that asks for nothing gets nothing, so such a thread's config is the sealed one.
 */
export const hostedToolsConfig = (hosted: HostedTools | undefined): Record<string, unknown> => {
  const search = hosted?.webSearch;
  if (search === undefined) return {};
  const tool = {
    ...(search.allowedDomains?.length ? { allowed_domains: [...search.allowedDomains] } : {}),
    ...(search.contextSize ? { context_size: search.contextSize } : {}),
  };
  return { web_search: "live", ...(Object.keys(tool).length > 0 ? { "tools.web_search": tool } : {}) };
};
