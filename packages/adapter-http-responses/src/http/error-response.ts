import type { GatewayError } from "@proxy/core";
import { httpStatusFor, invalidRequest, openAIErrorBody } from "@proxy/core";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** OpenAI's error shape with the core's status table; `Retry-After` for overload/rate limits. */
export const errorResponse = (c: Context, error: GatewayError): Response => {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined)
    headers["Retry-After"] = String(Math.ceil(error.retryAfterSeconds));
  return c.json(openAIErrorBody(error), httpStatusFor(error) as ContentfulStatusCode, headers);
};

/** The body as JSON, or a 400 saying it is not JSON (param null, like OpenAI). */
export const readJsonBody = async (c: Context): Promise<unknown> => {
  const text = await c.req.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidRequest(
      "We could not parse the JSON body of your request. Send a valid JSON object with Content-Type: application/json.",
      undefined,
      "invalid_json",
    );
  }
};
