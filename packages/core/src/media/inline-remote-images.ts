import { invalidRequest } from "../errors/gateway-error.js";
import type { ContentPart, ConversationItem, TurnRequest } from "../model/conversation.js";
import type { MediaFetcher } from "../ports/media-fetcher.js";

const REMOTE = /^https?:\/\//i;

type ImagePart = Extract<ContentPart, { type: "image" }>;

const isRemoteImage = (part: ContentPart): part is ImagePart =>
  part.type === "image" && REMOTE.test(part.url);

/** The images of an item: a message's image parts, or the images a tool returned. */
const imagesOf = (item: ConversationItem): ReadonlyArray<ContentPart> =>
  item.type === "message" ? item.content : item.type === "tool-result" ? (item.images ?? []) : [];

const failed = (part: ImagePart, reason: string) =>
  invalidRequest(
    `The image at ${part.path ?? "image_url"} could not be fetched: ${reason}.`,
    part.path ?? "image_url",
    "invalid_image_url",
  );

/** Decoded size of a base64 string (padding excluded). */
const bytesOf = (base64: string): number =>
  Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);

/**
 * Replaces every http(s) image of a request with a data URL fetched through the port, before any
 * backend turn runs. A URL given several times is fetched once; the fetcher's `perRequest` limits
 * bound how many distinct images one request may fetch and their bytes together. The first image
 * that cannot be fetched, or that goes past a limit, fails the request with a 400 whose `param`
 * is that image's place in the client's request. Requests without remote images are returned as
 * they are.
 */
export const inlineRemoteImages = async (
  request: TurnRequest,
  fetcher: MediaFetcher,
  signal: AbortSignal,
): Promise<TurnRequest> => {
  const remote = request.items.flatMap(imagesOf).filter(isRemoteImage);
  if (remote.length === 0) return request;
  const limits = fetcher.perRequest;
  // Every place counts, repeats included: each one reaches the backend as a copy of the bytes.
  const over = limits === undefined ? undefined : remote[limits.maxImages];
  if (limits !== undefined && over !== undefined)
    throw failed(over, `a request may hold at most ${limits.maxImages} remote images`);
  const byUrl = new Map<string, { readonly dataUrl: string; readonly bytes: number }>();
  let totalBytes = 0;
  // One at a time: the size caps then bound what one request holds in memory at once.
  for (const part of remote) {
    const left = limits === undefined ? undefined : limits.maxTotalBytes - totalBytes;
    let image = byUrl.get(part.url);
    if (image === undefined) {
      try {
        const fetched = await fetcher.fetchImage(part.url, { signal, maxBytes: left });
        image = {
          dataUrl: `data:${fetched.mediaType};base64,${fetched.base64}`,
          bytes: bytesOf(fetched.base64),
        };
      } catch (error) {
        throw failed(part, error instanceof Error ? error.message : String(error));
      }
      byUrl.set(part.url, image);
    }
    if (left !== undefined && image.bytes > left)
      throw failed(
        part,
        `the request's remote images together are larger than ${limits?.maxTotalBytes} bytes`,
      );
    totalBytes += image.bytes;
  }
  const inlined = new Map<ImagePart, string>(
    remote.map((part) => [part, byUrl.get(part.url)?.dataUrl as string]),
  );
  const inline = <P extends ContentPart>(part: P): P => {
    const url = part.type === "image" ? inlined.get(part as ImagePart) : undefined;
    return url === undefined ? part : { ...part, url };
  };
  const items = request.items.map((item): ConversationItem => {
    if (!imagesOf(item).some(isRemoteImage)) return item;
    if (item.type === "message") return { ...item, content: item.content.map(inline) };
    return item.type === "tool-result" ? { ...item, images: item.images?.map(inline) } : item;
  });
  return { ...request, items };
};
