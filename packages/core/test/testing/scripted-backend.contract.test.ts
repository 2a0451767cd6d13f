import { describeTextBackendContract, scriptedContractHarness } from "../../src/testing/index.js";

// The harness is the same one the gateway's composed stack runs its contract over.
describeTextBackendContract("scripted backend", async () => scriptedContractHarness(), { nativeTools: true });
