import { packageBuild } from "../../tsup.shared.js";

export default packageBuild(["src/index.ts", "src/gateway.ts", "src/testing/index.ts"], {
  platform: "neutral",
});
