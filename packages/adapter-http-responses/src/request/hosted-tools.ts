import { type HostedTools, invalidRequest } from "@proxy/core";

/** The Responses names of the provider's hosted web search (`web_search_preview*` are its older names). */
const WEB_SEARCH = /^web_search(?:_preview(?:_\d{4}_\d{2}_\d{2})?|_\d{4}_\d{2}_\d{2})?$/;
const CONTEXT_SIZES = new Set(["low", "medium", "high"]);

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

const domainsAt = (u: unknown, param: string): string[] | undefined => {
  if (u === undefined || u === null) return undefined;
  if (!Array.isArray(u) || u.some((d) => typeof d !== "string"))
    throw invalidRequest("allowed_domains must be an array of strings.", param);
  return u as string[];
};

/**
 * The hosted tools a Responses request asks for: its first `web_search` tool (`filters.allowed_domains`
 * and `search_context_size` go with it; `user_location` has no codex equivalent and is not used).
 */
export const decodeResponsesHostedTools = (tools: ReadonlyArray<unknown> | null | undefined): HostedTools => {
  const index = (tools ?? []).findIndex(
    (t) => isRecord(t) && typeof t.type === "string" && WEB_SEARCH.test(t.type),
  );
  if (index < 0) return {};
  const tool = (tools ?? [])[index] as Record<string, unknown>;
  const param = `tools[${index}]`;
  const filters = isRecord(tool.filters) ? tool.filters : undefined;
  const size = tool.search_context_size;
  if (size !== undefined && size !== null && !(typeof size === "string" && CONTEXT_SIZES.has(size)))
    throw invalidRequest(
      "search_context_size must be one of low, medium, high.",
      `${param}.search_context_size`,
    );
  return {
    webSearch: {
      tool: String(tool.type),
      param,
      allowedDomains: domainsAt(filters?.allowed_domains, `${param}.filters.allowed_domains`),
      contextSize: (size ?? undefined) as "low" | "medium" | "high" | undefined,
    },
  };
};
