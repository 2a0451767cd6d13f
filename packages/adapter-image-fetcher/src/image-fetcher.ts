import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { FetchedImage, MediaFetcher } from "@proxy/core/gateway";
import { type AddressGuard, createAddressGuard } from "./address-guard.js";

export interface ImageFetchOptions {
  readonly allow: ReadonlyArray<string>;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  /** Remote images one request may hold (repeats count), and their bytes together. */
  readonly maxPerRequest: number;
  readonly maxTotalBytes: number;
  /** Fetches running at once in this process; more wait for a slot (within their deadline). */
  readonly maxInFlight: number;
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

const readCapped = async (res: IncomingMessage, maxBytes: number, tooLarge: string): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      throw new Refused(tooLarge);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
};

/** A counting semaphore: `acquire` waits for a free slot, or rejects when `signal` aborts first. */
const createSlots = (size: number) => {
  let free = size;
  const waiting: Array<() => void> = [];
  return {
    async acquire(signal: AbortSignal): Promise<void> {
      if (free > 0) {
        free--;
        return;
      }
      await new Promise<void>((resolve, reject) => {
        const granted = () => {
          signal.removeEventListener("abort", aborted);
          resolve();
        };
        const aborted = () => {
          waiting.splice(waiting.indexOf(granted), 1);
          reject(signal.reason);
        };
        waiting.push(granted);
        signal.addEventListener("abort", aborted, { once: true });
      });
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
};

/**
 * Fetches client images over http(s) with the SSRF guard checked after DNS resolution on the first
 * request and on every redirect (the connection goes to the vetted address), a size cap (the
 * image's, or what is left of the request's total), one deadline for the whole fetch (waiting for
 * a slot included), a redirect limit, an `image/*` content type and a bound on fetches in flight.
 */
export const createImageFetcher = (options: ImageFetchOptions): MediaFetcher => {
  const guard = createAddressGuard(options.allow);
  const slots = createSlots(options.maxInFlight);
  return {
    perRequest: { maxImages: options.maxPerRequest, maxTotalBytes: options.maxTotalBytes },
    async fetchImage(href, { signal, maxBytes: left }) {
      const deadline = AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]);
      const maxBytes = Math.min(options.maxBytes, left ?? Number.POSITIVE_INFINITY);
      const tooLarge =
        maxBytes < options.maxBytes
          ? `the request's remote images together are larger than ${options.maxTotalBytes} bytes`
          : `the image is larger than ${options.maxBytes} bytes`;
      let url = new URL(href);
      let holding = false;
      try {
        await slots.acquire(deadline);
        holding = true;
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
          if (length > maxBytes) {
            res.destroy();
            throw new Refused(tooLarge);
          }
          const body = await readCapped(res, maxBytes, tooLarge);
          return { mediaType, base64: body.toString("base64") } satisfies FetchedImage;
        }
      } catch (error) {
        if (error instanceof Refused) throw error;
        if (deadline.aborted && !signal.aborted)
          throw new Refused(`no complete answer within ${options.timeoutMs} ms`);
        throw new Refused(`the fetch failed (${error instanceof Error ? error.message : String(error)})`);
      } finally {
        if (holding) slots.release();
      }
    },
  };
};
