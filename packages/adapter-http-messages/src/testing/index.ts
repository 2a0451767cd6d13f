export {
  type CheckedMessage,
  type CheckedStream,
  checkMessagesStream,
  parseSseFrames,
  type SseFrame,
} from "./stream-grammar.js";
