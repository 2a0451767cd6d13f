import { type HostedTools, invalidRequest } from "@proxy/core";
import type { ToolParam } from "./request-schema.js";

/** Anthropic's web search server tool, by its versioned type (`web_search_20250305`, later dates). */
const WEB_SEARCH = /^web_search_\d{8}$/;

/**
 * The hosted tools a Messages request asks for: its `web_search_*` server tool, with `max_uses`,
 * `allowed_domains` and `blocked_domains` (which Anthropic refuses together, and so does this).
 */
export const decodeMessagesHostedTools = (tools: ReadonlyArray<ToolParam> | undefined): HostedTools => {
  const index = (tools ?? []).findIndex((t) => typeof t.type === "string" && WEB_SEARCH.test(t.type));
  const tool = tools?.[index];
  if (tool === undefined) return {};
  const param = `tools[${index}]`;
  if (tool.allowed_domains?.length && tool.blocked_domains?.length)
    throw invalidRequest(
      `Invalid value for '${param}': allowed_domains and blocked_domains cannot be used together.`,
      `${param}.blocked_domains`,
    );
  return {
    webSearch: {
      tool: tool.type ?? "web_search",
      param,
      maxUses: tool.max_uses ?? undefined,
      allowedDomains: tool.allowed_domains?.length ? tool.allowed_domains : undefined,
      blockedDomains: tool.blocked_domains?.length ? tool.blocked_domains : undefined,
    },
  };
};
