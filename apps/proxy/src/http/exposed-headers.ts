import { REQUEST_ID_HEADER as ANTHROPIC_REQUEST_ID_HEADER } from "@proxy/adapter-http-messages";
import { NOT_STORED_HEADER } from "@proxy/adapter-http-responses";
import { TURN_HEADERS } from "@proxy/http-surface";
import { ROUTE_HEADER_NAMES } from "./route-headers.js";

/**
 * The response headers a browser client may read under CORS (`Access-Control-Expose-Headers`):
 * everything the gateway sets beyond the CORS-safelisted ones, from where each is defined. The
 * standard ones are the error map's (`Retry-After`, `WWW-Authenticate`) and the 405 answer's `Allow`.
 */
export const EXPOSED_HEADERS: ReadonlyArray<string> = [
  "x-request-id",
  ANTHROPIC_REQUEST_ID_HEADER,
  ...ROUTE_HEADER_NAMES,
  ...Object.values(TURN_HEADERS),
  NOT_STORED_HEADER,
  "retry-after",
  "www-authenticate",
  "allow",
];
