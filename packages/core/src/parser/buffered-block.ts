import type { OpenBlock } from "./block-format.js";
import type { AfterBlock, BlockContext } from "./call-stream.js";
import { rejectBlock } from "./call-stream.js";
import { advanceMatch, utf8Width } from "./chars.js";
import { createTextBuffer } from "./text-buffer.js";

export interface BufferedBlockFormat {
  readonly open: string;
  readonly close: string;
  /** The tool a block names, also for an unfinished block (to tell strict from soft). */
  nameOf(content: string): string | undefined;
  /** Decides a closed block: `content` lies between the tags, `raw` includes them. */
  decide(ctx: BlockContext, content: string, raw: string): AfterBlock;
}

/**
 * A block read whole: buffered up to its close tag and decided when it closes, for formats whose
 * arguments are only known at the end. A block that never closes or outgrows `maxBlockBytes` is
 * never a call: a soft rejection (its raw text follows) or a strict one.
 */
export function openBufferedBlock(ctx: BlockContext, format: BufferedBlockFormat): OpenBlock {
  const raw = createTextBuffer(false);
  let bytes = 0;
  let status: "open" | "closed" | "too-large" = "open";
  let closeMatched = 0;

  const feed = (s: string, start: number): number => {
    let i = start;
    for (; i < s.length; i += 1) {
      const c = s.charCodeAt(i);
      bytes += utf8Width(c);
      if (bytes > ctx.maxBlockBytes) {
        status = "too-large";
        break;
      }
      closeMatched = advanceMatch(format.close, closeMatched, c);
      if (closeMatched === format.close.length) {
        status = "closed";
        i += 1;
        break;
      }
    }
    raw.append(s.slice(start, i));
    return i;
  };

  const finish = (): AfterBlock => {
    const written = raw.toString();
    const blockRaw = format.open + written;
    if (status === "closed") return format.decide(ctx, written.slice(0, -format.close.length), blockRaw);
    const name = format.nameOf(written);
    const strict = name !== undefined && ctx.tools.get(name)?.strict === true;
    const tooLarge = status === "too-large";
    const detail = tooLarge
      ? `the block exceeds ${ctx.maxBlockBytes} bytes`
      : `the stream ended inside ${format.open}`;
    rejectBlock(ctx, tooLarge ? "block-too-large" : "unterminated", strict, detail, blockRaw, name);
    if (tooLarge) return strict ? "discard" : "passthrough";
    return strict ? "drop-whitespace" : "text";
  };

  return { feed, state: () => status, finish };
}
