import { type BackendMiddleware, type UsageStore, wrapBackend } from "@proxy/core/gateway";
import { describeTextBackendContract, scriptedContractHarness } from "@proxy/core/testing";
import * as Effect from "effect/Effect";
import type * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { createBackendStack } from "../src/backend/backend-stack.js";
import { requireBackendAuth } from "../src/backend/require-auth.js";
import { callerOf } from "../src/http/auth.js";
import { Backend, type GatewayConfig, resolveConfig } from "../src/index.js";
import { createLogger } from "../src/observability/logger.js";
import { keyLimits, limitedKeys } from "../src/usage/key-limits.js";

/**
 * The backend contract over every stack the gateway builds (`backend/backend-stack.ts`), with the
 * scripted backend standing in for codex at the bottom: each layer is one middleware of the list
 * and batches pass through every one of them.
 */

const KEY = "sk-contract-0123456789";
const authed = { authenticated: true, requiresOpenaiAuth: true, detail: "" };

/** A usage store that admits every request and has seen no tokens (the limits are checked, never hit). */
const admittingStore: UsageStore = {
  recordUsage: async () => undefined,
  usage: async () => ({ data: [], hasMore: false }),
  usageTotals: () => Promise.reject(new Error("limit checks read no totals")),
  purgeUsageBefore: async () => 0,
  admitRequest: async () => true,
  keyLoad: async () => ({ minuteTokens: 0, dayTokens: 0, daySearches: 0 }),
  purgeMinutesBefore: async () => 0,
};

/** Every turn as the limited key's (the auth middleware sets the caller in the gateway). */
const asLimitedKey: BackendMiddleware = {
  stream: (request, options, next) => next({ ...request, caller: callerOf(KEY) }, options),
};

const stackUnderContract = (
  name: string,
  env: Readonly<Record<string, string>>,
  layer: (config: GatewayConfig, codex: Parameters<typeof Backend.layerCodexOver>[0]) => Layer.Layer<Backend>,
  limited = false,
) =>
  describeTextBackendContract(
    name,
    async () => {
      const config = resolveConfig({ env });
      const harness = scriptedContractHarness();
      const codex = Effect.succeed({
        backend: harness.backend,
        auth: requireBackendAuth(async () => authed, authed),
        beginShutdown: () => undefined,
      });
      let runtime: ManagedRuntime.ManagedRuntime<Backend, never> | undefined = ManagedRuntime.make(
        layer(config, codex),
      );
      const acquired = await runtime.runPromise(
        Effect.gen(function* () {
          return yield* Backend;
        }),
      );
      const limits = limited
        ? keyLimits({
            store: admittingStore,
            keys: limitedKeys([
              { key: KEY, name: "contract", limits: { rpm: 1_000_000, tpm: 1_000_000_000 } },
            ]),
          })
        : undefined;
      const { backend } = createBackendStack(acquired, { aliases: config.modelAliases, keyLimits: limits });
      return {
        ...harness,
        backend: limited ? wrapBackend(backend, asLimitedKey) : backend,
        close: async () => {
          await runtime?.dispose();
          runtime = undefined;
        },
      };
    },
    { nativeTools: true },
  );

const ALIASES = { PROXY_MODEL_ALIASES: "gateway-alias=contract-model" };

stackUnderContract(
  "the default codex stack (drain, aliases, the codex route, auth check)",
  ALIASES,
  (_, codex) => Backend.layerCodexOver(codex),
);

stackUnderContract(
  "the default codex stack with per-key limits (limits, drain, aliases, the codex route, auth check)",
  ALIASES,
  (_, codex) => Backend.layerCodexOver(codex),
  true,
);

const ROUTES = {
  ...ALIASES,
  PROXY_MODELS: JSON.stringify([
    {
      id: "contract-model",
      backend: "codex",
      maxInFlight: 8,
      aliases: ["contract-alias"],
      fallbacks: ["contract-spare"],
    },
    { id: "contract-spare", backend: "codex", maxInFlight: 8 },
  ]),
};
const routed = (config: GatewayConfig, codex: Parameters<typeof Backend.layerCodexOver>[0]) =>
  Backend.layerRoutesOver(config, createLogger("silent"), {}, codex);

stackUnderContract(
  "the routed stack with a fallback (drain, aliases, route table, fallbacks, route, request, admission, auth check)",
  ROUTES,
  routed,
);

stackUnderContract("the routed stack with per-key limits", ROUTES, routed, true);
