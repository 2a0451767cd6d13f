import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/testing/index.ts"],
  format: ["esm"],
  target: "node22",
  platform: "neutral",
  sourcemap: true,
  clean: true,
  dts: false,
  splitting: true,
});
