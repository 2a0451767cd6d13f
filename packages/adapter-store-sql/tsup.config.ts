import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/testing/index.ts"],
  format: ["esm"],
  target: "node22",
  platform: "node",
  sourcemap: true,
  clean: false, // the build script empties dist (tsup would leave tsc's .tsbuildinfo behind)
  dts: false,
  splitting: true,
  removeNodeProtocol: false, // `node:sqlite` has no bare-name form
});
