import { packageBuild } from "../../tsup.shared.js";
import { gatewayBundle } from "./tsup.config.js";

// The installable package (`npm run package`): the bin runs the same bundle as in the checkout; the
// library entry has the workspace packages bundled in, every other bare import (npm dependencies of
// any of them, builtins) stays an import that npm or Node satisfies. scripts/package.mjs chooses the
// output directory and checks each such import is a dependency.
export default [
  packageBuild(["src/index.ts"], {
    noExternal: [/^@proxy\//],
    external: [/^(?!@proxy\/)[^./]/],
  }),
  gatewayBundle,
];
