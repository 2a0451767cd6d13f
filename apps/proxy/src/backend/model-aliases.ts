import type { BackendMiddleware } from "@proxy/core";

/**
 * The backend model for a client's model name: its alias if one is configured. Without model
 * routes, Claude Code's own names (`claude-*`) are never passed on as a model slug: the empty name
 * makes the backend use its configured default model. With routes, the router decides (and answers
 * an unrouted name with 404 `model_not_found`).
 */
export const routeModel = (
  model: string,
  aliases: Readonly<Record<string, string>>,
  claudeOnDefault: boolean,
): string => aliases[model] ?? (claudeOnDefault && /^claude-/i.test(model) ? "" : model);

/** The deployment's model aliases (`PROXY_MODEL_ALIASES`) as a layer; `/v1/models` lists them too. */
export const modelAliases = (
  aliases: Readonly<Record<string, string>>,
  /** No model routes: `claude-*` names run on the backend's default model (see routeModel). */
  claudeOnDefault: boolean,
): BackendMiddleware => ({
  stream: (request, options, next) =>
    next({ ...request, model: routeModel(request.model, aliases, claudeOnDefault) }, options),
  capabilitiesFor: (model, next) => next(routeModel(model, aliases, claudeOnDefault)),
  async listModels(next) {
    const models = await next();
    const aliased = Object.entries(aliases).map(([id, target]) => ({
      id,
      description: `alias of ${target}`,
      ownedBy: "proxy",
    }));
    return [...models, ...aliased.filter((a) => !models.some((m) => m.id === a.id))];
  },
});
