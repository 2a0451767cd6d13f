import type { BackendMiddleware } from "@proxy/core/gateway";

const CLAUDE_NAME = /^claude-/i;

/**
 * The backend model for a client's model name: its alias if one is configured. Without model
 * routes, Claude Code's own names (`claude-*`) are never passed on as a model slug: the empty name
 * makes the backend use its configured default model. With routes, the router decides (and answers
 * an unrouted name with 404 `model_not_found`). The aliases are a Map: a client's name is looked
 * up among the configured ones only (never `Object.prototype`'s `constructor`, `toString`…).
 */
const modelResolver = (aliases: Readonly<Record<string, string>>, claudeOnDefault: boolean) => {
  const table = new Map(Object.entries(aliases));
  return (model: string): string =>
    table.get(model) ?? (claudeOnDefault && CLAUDE_NAME.test(model) ? "" : model);
};

/** The deployment's model aliases (`PROXY_MODEL_ALIASES`) as a layer; `/v1/models` lists them too. */
export const modelAliases = (
  aliases: Readonly<Record<string, string>>,
  /** No model routes: `claude-*` names run on the backend's default model (see modelResolver). */
  claudeOnDefault: boolean,
): BackendMiddleware => {
  const resolve = modelResolver(aliases, claudeOnDefault);
  return {
    stream: (request, options, next) => next({ ...request, model: resolve(request.model) }, options),
    capabilitiesFor: (model, next) => next(resolve(model)),
    async listModels(next) {
      const models = await next();
      const aliased = Object.entries(aliases).map(([id, target]) => ({
        id,
        description: `alias of ${target}`,
        ownedBy: "proxy",
      }));
      return [...models, ...aliased.filter((a) => !models.some((m) => m.id === a.id))];
    },
  };
};
