import { describeTextBackendContract, scriptedContractHarness } from "@proxy/core/testing";
import * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { requireBackendAuth } from "../src/backend/require-auth.js";
import { Backend, resolveConfig } from "../src/index.js";
import { createLogger } from "../src/observability/logger.js";

/**
 * The backend contract over the stack the gateway really builds around a backend: drain and
 * aliases (gateway-backend) over the route table over the route's admission over the auth check,
 * with the scripted backend at the bottom. Each layer is a `wrapBackend`; batches pass through.
 */
describeTextBackendContract(
  "the gateway's composed backend (drain, routes, route admission, auth check)",
  async () => {
    const config = resolveConfig({
      env: {
        PROXY_MODELS: JSON.stringify([
          { id: "contract-model", backend: "codex", maxInFlight: 8, aliases: ["contract-alias"] },
        ]),
        PROXY_MODEL_ALIASES: "gateway-alias=contract-model",
      },
    });
    const logger = createLogger("silent");
    let runtime: ManagedRuntime.ManagedRuntime<Backend, never> | undefined;
    const harness = scriptedContractHarness();
    const scripted = harness.backend;
    const authed = { authenticated: true, requiresOpenaiAuth: true, detail: "" };
    const codex = Effect.succeed({
      backend: requireBackendAuth(scripted, async () => authed, authed),
      beginShutdown: () => undefined,
    });
    runtime = ManagedRuntime.make(Backend.layerRoutesOver(config, logger, {}, codex));
    const backend = await runtime.runPromise(
      Effect.gen(function* () {
        return yield* Backend;
      }),
    );
    return {
      ...harness,
      backend,
      close: async () => {
        await runtime?.dispose();
        runtime = undefined;
      },
    };
  },
  { nativeTools: true },
);
