import { JSON_RPC_METHOD_NOT_FOUND, JsonRpcError } from "./rpc-errors.js";

/** Pre-v2 approval methods answer with the legacy `ReviewDecision` vocabulary. */
const LEGACY_APPROVALS = new Set(["execCommandApproval", "applyPatchApproval"]);

/**
 * The gateway never lets codex act on the host: every approval the app-server could ask for is
 * declined (with `approvalPolicy:"never"` none should arrive at all), and anything else it asks
 * of the client — dynamic tool calls, user input, elicitations — is answered "method not found".
 */
export const answerServerRequest = (method: string): unknown => {
  if (LEGACY_APPROVALS.has(method)) return { decision: "denied" };
  if (/approval/i.test(method)) return { decision: "decline" };
  throw new JsonRpcError(JSON_RPC_METHOD_NOT_FOUND, `the gateway does not handle ${method}`);
};
