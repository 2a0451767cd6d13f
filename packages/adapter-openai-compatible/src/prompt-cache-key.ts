import { createHash } from "node:crypto";
import type { BackendRequest } from "@proxy/core";

/**
 * A stable `prompt_cache_key` for one conversation: a digest of who asks (the partition), the
 * model, the instructions and the conversation's first message, which every later request of the
 * same conversation repeats unchanged. OpenAI-style servers route requests with one key to the
 * same cache (prefix caching, slot affinity); another caller's identical prompt gets another key.
 * 43 characters (base64url SHA-256), within OpenAI's 64-character limit.
 */
export const conversationCacheKey = (request: BackendRequest): string => {
  const first = request.history[0] ?? { role: "user", content: request.input };
  return createHash("sha256")
    .update(JSON.stringify([request.partition ?? "", request.model, request.instructions, first]))
    .digest("base64url");
};
