import { formatParamPath, GatewayError } from "@proxy/core";
import type * as Issue from "effect/SchemaIssue";
import * as SchemaIssue from "effect/SchemaIssue";

const formatter = SchemaIssue.makeFormatterStandardSchemaV1();

/**
 * The first (deepest-first as Effect reports it) failure of a decode, as an `invalid_request` error
 * whose `param` names the offending path and whose message reads like OpenAI's.
 */
export const issueToGatewayError = (issue: Issue.Issue, base = ""): GatewayError => {
  const entries = formatter(issue).issues;
  const deepest = [...entries].sort((a, b) => (b.path?.length ?? 0) - (a.path?.length ?? 0))[0];
  const path = (deepest?.path ?? []).map((p) => (typeof p === "object" && p !== null ? p.key : p));
  const param = formatParamPath(path, base);
  const detail = deepest?.message ?? "invalid value";
  const message =
    detail === "Missing key"
      ? `Missing required parameter: '${param}'.`
      : param === ""
        ? `Invalid request body: ${detail}.`
        : `Invalid value for '${param}': ${detail}.`;
  return new GatewayError("invalid_request", message, {
    param: param === "" ? undefined : param,
    code: detail === "Missing key" ? "missing_required_parameter" : "invalid_value",
  });
};
