import type { Caller } from "@proxy/core/gateway";
import type { Context } from "hono";

/**
 * The caller's owner key as the gateway's auth middleware set it (a digest of the API key, never
 * the key), "" when nothing set it: whose stored objects a request may see, and the partition a
 * backend keeps per-caller state under.
 */
export const callerOwner = (c: Context): string => c.get("caller")?.owner ?? "";

/** The caller as the auth middleware set it (owner digest and the key's name), if any. */
export const requestCaller = (c: Context): Caller | undefined => c.get("caller");
