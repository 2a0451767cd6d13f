/**
 * The text a turn already sent to the client, so a corrective attempt that repeats it is not sent
 * twice. Only tool rules call for a corrective attempt, so without them (`keep` false) nothing is
 * kept and a long answer costs no memory.
 */
export const createSentText = (keep: boolean) => {
  let sent = "";
  let replay: { text: string; at: number } | undefined;
  return {
    /** The part of `text` the client does not have yet (recorded as sent). */
    fresh(text: string): string {
      let out = text;
      if (replay !== undefined) {
        let i = 0;
        while (i < text.length && replay.at < replay.text.length && text[i] === replay.text[replay.at]) {
          i++;
          replay.at++;
        }
        if (i < text.length) replay = undefined;
        out = text.slice(i);
      }
      if (keep && out !== "") sent += out;
      return out;
    },
    /** A new attempt replays from the start of what was sent. */
    beginAttempt(): void {
      replay = sent === "" ? undefined : { text: sent, at: 0 };
    },
  };
};
