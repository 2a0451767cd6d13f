import { randomBytes } from "node:crypto";
import { crc32, deflateSync } from "node:zlib";

const chunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/**
 * A real photo-sized PNG: `side`×`side` RGB pixels of noise, which no compressor shrinks (a side
 * of 1300 is a 5 MB file; codex 0.169 decodes it and sends it to the model as it is).
 */
export const noisePng = (side: number): Buffer => {
  const row = side * 3 + 1;
  const pixels = Buffer.alloc(row * side);
  for (let y = 0; y < side; y++) randomBytes(side * 3).copy(pixels, y * row + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels, { level: 1 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
};
