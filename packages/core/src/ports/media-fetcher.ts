/** An image fetched for inlining: its media type and bytes as base64. */
export interface FetchedImage {
  readonly mediaType: string;
  readonly base64: string;
}

/** What one request may fetch in all (the fetcher's own per-image bounds apply on top). */
export interface MediaRequestLimits {
  /** Distinct remote images per request; a URL given several times is fetched once. */
  readonly maxImages: number;
  /** Bytes of all of a request's remote images together. */
  readonly maxTotalBytes: number;
}

/**
 * Fetches a remote (http/https) image for a backend that takes only inline ones. Implementations
 * guard the fetch (addresses, redirects, size, time) and reject with an Error whose message says
 * why the image was refused; the core turns that into a 400 naming the image's place.
 */
export interface MediaFetcher {
  /** `maxBytes`: what is left of the request's total; the fetch refuses a larger image. */
  fetchImage(
    url: string,
    options: { readonly signal: AbortSignal; readonly maxBytes?: number | undefined },
  ): Promise<FetchedImage>;
  readonly perRequest?: MediaRequestLimits | undefined;
}
