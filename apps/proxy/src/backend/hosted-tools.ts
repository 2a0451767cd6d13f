import { invalidRequest } from "@proxy/core";
import type { BackendMiddleware } from "@proxy/core/gateway";

/**
 * `PROXY_HOSTED_WEB_SEARCH=false`: a request asking for the provider's hosted web search is refused
 * with a 400 naming the tool (never answered without the search it asked for).
 */
export const hostedToolsSwitch = (webSearch: boolean): BackendMiddleware => ({
  stream: (request, options, next) => {
    const search = request.hostedTools?.webSearch;
    if (search !== undefined && !webSearch)
      throw invalidRequest(
        `The hosted tool '${search.tool}' at '${search.param}' is turned off on this gateway (PROXY_HOSTED_WEB_SEARCH=false).`,
        search.param,
        "hosted_tool_disabled",
      );
    return next(request, options);
  },
});
