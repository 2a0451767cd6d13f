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

/**
 * Replaces every http(s) image of a request with a data URL fetched through the port, before any
 * backend turn runs. The first image that cannot be fetched fails the request with a 400 whose
 * `param` is that image's place in the client's request. Requests without remote images are
 * returned as they are.
 */
export const inlineRemoteImages = async (
  request: TurnRequest,
  fetcher: MediaFetcher,
  signal: AbortSignal,
): Promise<TurnRequest> => {
  const remote = request.items.flatMap(imagesOf).filter(isRemoteImage);
  if (remote.length === 0) return request;
  const inlined = new Map<ImagePart, string>();
  // One at a time: the size cap then bounds what one request holds in memory at once.
  for (const part of remote) {
    try {
      const image = await fetcher.fetchImage(part.url, { signal });
      inlined.set(part, `data:${image.mediaType};base64,${image.base64}`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw invalidRequest(
        `The image at ${part.path ?? "image_url"} could not be fetched: ${reason}.`,
        part.path ?? "image_url",
        "invalid_image_url",
      );
    }
  }
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
