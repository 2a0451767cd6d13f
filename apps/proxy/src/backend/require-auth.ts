import { GatewayError } from "@proxy/core";
import type { BackendMiddleware, BackendReadiness } from "@proxy/core/gateway";

export interface AuthCheck {
  readonly authenticated: boolean;
  readonly requiresOpenaiAuth: boolean;
  readonly detail: string;
}

/**
 * How to log codex in, for both ways the gateway is installed. In a checkout `npx codex` would
 * fetch an unrelated npm package, so it names the pinned binary's path there.
 */
const CODEX_LOGIN_FIX =
  "As the user the gateway runs as (same CODEX_HOME), run `npx codex login` in the gateway's install directory, or `apps/proxy/node_modules/.bin/codex login` in a checkout";

/** What every turn is refused with while codex has no credentials: the fix, once. */
export const NOT_LOGGED_IN = `codex is not logged in on the gateway. ${CODEX_LOGIN_FIX}; no restart needed.`;

/**
 * Without credentials codex spends ~25 s retrying a provider that will refuse it. Fail such turns
 * at once with a `backend_auth` error that says what to do (a status clients do not retry), and
 * report the backend not ready while that lasts. Re-check (at most every `recheckMs`, on a turn or a
 * readiness read) so a `codex login` done while the gateway runs takes effect without a restart.
 */
export const requireBackendAuth = (
  check: () => Promise<AuthCheck>,
  initial: AuthCheck,
  options: { readonly recheckMs?: number; readonly now?: () => number } = {},
): BackendMiddleware => {
  const now = options.now ?? Date.now;
  const recheckMs = options.recheckMs ?? 10_000;
  let status = initial;
  let checkedAt = now();
  let checking: Promise<void> | undefined;
  const usable = (s: AuthCheck) => s.authenticated || !s.requiresOpenaiAuth;

  /** One `account/read` at a time, and only once `recheckMs` has passed since the last. */
  const recheck = (): Promise<void> => {
    if (checking !== undefined) return checking;
    if (now() - checkedAt < recheckMs) return Promise.resolve();
    checking = check()
      .then(
        (s) => {
          status = s;
        },
        () => {},
      )
      .finally(() => {
        checkedAt = now();
        checking = undefined;
      });
    return checking;
  };

  return {
    async stream(request, options, next) {
      if (!usable(status)) await recheck();
      if (!usable(status)) throw new GatewayError("backend_auth", NOT_LOGGED_IN, { code: "backend_auth" });
      return next(request, options);
    },
    readiness(next): BackendReadiness {
      const inner = next();
      if (usable(status)) return inner;
      void recheck();
      return { ...inner, ready: false, detail: NOT_LOGGED_IN };
    },
  };
};
