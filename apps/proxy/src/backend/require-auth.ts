import { GatewayError, type TextBackend, wrapBackend } from "@proxy/core";

export interface AuthCheck {
  readonly authenticated: boolean;
  readonly requiresOpenaiAuth: boolean;
  readonly detail: string;
}

/**
 * Without credentials codex spends ~25 s retrying a provider that will refuse it. Fail such turns
 * at once with a `backend_auth` error that says what to do; re-check (at most every `recheckMs`)
 * so a `codex login` done while the gateway runs takes effect without a restart.
 */
export const requireBackendAuth = (
  backend: TextBackend,
  check: () => Promise<AuthCheck>,
  initial: AuthCheck,
  options: { readonly recheckMs?: number; readonly now?: () => number } = {},
): TextBackend => {
  const now = options.now ?? Date.now;
  const recheckMs = options.recheckMs ?? 10_000;
  let status = initial;
  let checkedAt = now();
  const usable = (s: AuthCheck) => s.authenticated || !s.requiresOpenaiAuth;

  const ensure = async () => {
    if (usable(status)) return;
    if (now() - checkedAt >= recheckMs) {
      status = await check().catch(() => status);
      checkedAt = now();
    }
    if (!usable(status)) {
      throw new GatewayError(
        "backend_auth",
        `The codex backend has no credentials: run \`codex login\` on the gateway host (same user and CODEX_HOME). ${status.detail}`.trim(),
        { code: "backend_not_logged_in", retryAfterSeconds: Math.ceil(recheckMs / 1000) },
      );
    }
  };

  return wrapBackend(backend, {
    async stream(request, options, next) {
      await ensure();
      return next(request, options);
    },
  });
};
