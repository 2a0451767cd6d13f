/** An image fetched for inlining: its media type and bytes as base64. */
export interface FetchedImage {
  readonly mediaType: string;
  readonly base64: string;
}

/**
 * Fetches a remote (http/https) image for a backend that takes only inline ones. Implementations
 * guard the fetch (addresses, redirects, size, time) and reject with an Error whose message says
 * why the image was refused; the core turns that into a 400 naming the image's place.
 */
export interface MediaFetcher {
  fetchImage(url: string, options: { readonly signal: AbortSignal }): Promise<FetchedImage>;
}
