import { resolveOutputMode, resolveToolMode, type TurnSettings } from "@proxy/core/gateway";
import type { Context } from "hono";
import type { SurfaceDeps } from "../surface/deps.js";
import type { SurfaceProfile } from "../surface/profile.js";
import { setModeHeaders } from "./headers.js";

/** A request's settings, as far as they are known: before and after its model is named. */
export interface RequestSettings {
  current(): TurnSettings;
  /** Resolves the settings for the request's model (again only when the model changed). */
  useModel(model: string): TurnSettings;
}

/**
 * The one place a request's modes are decided: the surface's own output mode if it has one, else
 * the `x-proxy-*-mode` headers, then the model's route, then the deployment's defaults. The headers
 * are read once; with `modeHeaders` the answer reports the modes as they were last resolved.
 */
export const resolveRequestSettings = (
  c: Context,
  deps: SurfaceDeps,
  profile: Pick<SurfaceProfile, "modeHeaders" | "outputMode">,
): RequestSettings => {
  const modeHeaders = profile.modeHeaders === true;
  const fixedOutput = profile.outputMode;
  const outputHeader = c.req.header("x-proxy-output-mode");
  const toolMode = resolveToolMode(c.req.header("x-proxy-tool-mode"), deps.settings.toolMode);
  const settingsFor = (model: string | undefined): TurnSettings => {
    const route = model === undefined || fixedOutput !== undefined ? undefined : deps.routeSettings?.(model);
    const outputMode =
      fixedOutput ?? resolveOutputMode(outputHeader, route?.outputMode ?? deps.settings.outputMode);
    const resolved: TurnSettings = { ...deps.settings, outputMode, toolMode };
    if (modeHeaders) setModeHeaders(c, resolved);
    return resolved;
  };
  let settings = settingsFor(undefined);
  let settledModel: string | undefined;
  return {
    current: () => settings,
    useModel(model) {
      if (settledModel !== model) {
        settledModel = model;
        settings = settingsFor(model);
      }
      return settings;
    },
  };
};
