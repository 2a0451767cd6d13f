import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { FetchedImage, MediaFetcher } from "@proxy/core";
import { type AddressGuard, createAddressGuard } from "./address-guard.js";

export interface ImageFetchOptions {
  readonly allow: ReadonlyArray<string>;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
}

class Refused extends Error {}

/** Resolves `host` and picks an address the guard allows; every address must pass, or none is used. */
const resolveAllowed = async (guard: AddressGuard, host: string): Promise<string> => {
  const bare = host.replace(/^\[|\]$/g, "");
  const addresses = isIP(bare) !== 0 ? [bare] : (await lookup(bare, { all: true })).map((a) => a.address);
  if (addresses.length === 0) throw new Refused(`the host ${host} does not resolve`);
  // A name that resolves to both public and private addresses is refused: it could flip between them.
  if (!addresses.every((a) => guard.allows(bare, a)))
    throw new Refused(
      "its address is not public (loopback, private, link-local or metadata); an operator can allow it with PROXY_IMAGE_FETCH_ALLOW",
    );
  return addresses[0]!;
};

/** One GET to a vetted address, with the host name kept for the Host header and TLS. */
const get = (url: URL, address: string, signal: AbortSignal) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    const req = send(
      {
        host: address,
        port: url.port === "" ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { host: url.host, accept: "image/*", "user-agent": "codex-tool-gateway" },
        servername: isIP(hostname) === 0 ? hostname : undefined,
        signal,
      },
      resolve,
    );
    req.once("error", reject);
    req.end();
  });

const readCapped = async (res: IncomingMessage, maxBytes: number): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      throw new Refused(`the image is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
};

/**
 * Fetches client images over http(s) with the SSRF guard checked after DNS resolution on the first
 * request and on every redirect (the connection goes to the vetted address), a size cap, one
 * deadline for the whole fetch, a redirect limit and an `image/*` content type.
 */
export const createImageFetcher = (options: ImageFetchOptions): MediaFetcher => {
  const guard = createAddressGuard(options.allow);
  return {
    async fetchImage(href, { signal }) {
      const deadline = AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]);
      let url = new URL(href);
      try {
        for (let redirects = 0; ; redirects++) {
          if (url.protocol !== "http:" && url.protocol !== "https:")
            throw new Refused(`only http and https images can be fetched, not ${url.protocol}`);
          const address = await resolveAllowed(guard, url.hostname);
          const res = await get(url, address, deadline);
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400 && res.headers.location !== undefined) {
            res.resume();
            if (redirects >= options.maxRedirects)
              throw new Refused(`more than ${options.maxRedirects} redirects`);
            url = new URL(res.headers.location, url);
            continue;
          }
          if (status !== 200) {
            res.resume();
            throw new Refused(`the server answered ${status}`);
          }
          const mediaType = (res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
          if (!mediaType.startsWith("image/")) {
            res.destroy();
            throw new Refused(`it is not an image (content-type ${mediaType || "missing"})`);
          }
          const length = Number(res.headers["content-length"]);
          if (length > options.maxBytes) {
            res.destroy();
            throw new Refused(`the image is larger than ${options.maxBytes} bytes`);
          }
          const body = await readCapped(res, options.maxBytes);
          return { mediaType, base64: body.toString("base64") } satisfies FetchedImage;
        }
      } catch (error) {
        if (error instanceof Refused) throw error;
        if (deadline.aborted && !signal.aborted)
          throw new Refused(`no complete answer within ${options.timeoutMs} ms`);
        throw new Refused(`the fetch failed (${error instanceof Error ? error.message : String(error)})`);
      }
    },
  };
};
