import type { ModelInfo } from "@proxy/core/gateway";
import { mapRpcError } from "./map-codex-error.js";
import type { ProcessPool } from "./pool/process-pool.js";

export interface CodexAuthStatus {
  /** False when codex needs an OpenAI login and has none: turns will fail until `codex login`. */
  readonly authenticated: boolean;
  readonly requiresOpenaiAuth: boolean;
  /** `chatgpt`, `apiKey`, … when logged in. */
  readonly accountType?: string | undefined;
  readonly detail: string;
}

/** The most `model/list` pages read (a guard against a cursor that never ends). */
const MAX_MODEL_PAGES = 20;

/** Requests about the backend rather than a turn (models, login), each on any ready app-server. */
export const createCodexControl = (
  pool: ProcessPool,
  timeouts: { readonly startTimeoutMs: number; readonly requestTimeoutMs: number },
) => {
  const control = async <T>(method: string, params: unknown): Promise<T> => {
    const lease = await pool.acquire(AbortSignal.timeout(timeouts.startTimeoutMs), timeouts.startTimeoutMs);
    try {
      return await lease.process.connection.request<T>(method, params, {
        timeoutMs: timeouts.requestTimeoutMs,
      });
    } catch (e) {
      throw mapRpcError(e, method);
    } finally {
      lease.release();
    }
  };

  return {
    /** The catalog's visible models, all pages. */
    async listModels(): Promise<ModelInfo[]> {
      const models: ModelInfo[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_MODEL_PAGES; page++) {
        type Page = { data?: Array<Record<string, unknown>>; nextCursor?: string | null };
        const result: Page = await control<Page>("model/list", cursor ? { cursor } : {});
        for (const m of result.data ?? []) {
          if (m.hidden === true || typeof m.id !== "string") continue;
          const description = typeof m.description === "string" ? m.description : undefined;
          models.push({ id: m.id, description, ownedBy: "codex" });
        }
        cursor = result.nextCursor ?? null;
        if (!cursor) break;
      }
      return models;
    },
    /** Whether turns can authenticate upstream (`account/read`). */
    async checkAuth(): Promise<CodexAuthStatus> {
      type Account = { account?: { type?: string } | null; requiresOpenaiAuth?: boolean };
      const result = await control<Account>("account/read", { refreshToken: false });
      const requiresOpenaiAuth = result.requiresOpenaiAuth === true;
      const accountType = result.account?.type;
      const authenticated = accountType !== undefined || !requiresOpenaiAuth;
      const detail = authenticated
        ? accountType
          ? `codex is logged in (${accountType})`
          : "the configured model provider needs no OpenAI login"
        : "codex is not logged in";
      return { authenticated, requiresOpenaiAuth, accountType, detail };
    },
  };
};
