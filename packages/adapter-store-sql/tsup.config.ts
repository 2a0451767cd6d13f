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
  // `node:sqlite` exists only with its prefix: tsup would import a package named `sqlite`.
  removeNodeProtocol: false,
});
