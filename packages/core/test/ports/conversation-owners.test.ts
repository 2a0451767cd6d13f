import { createMemoryConversationOwners } from "../../src/gateway.js";
import { describeConversationOwnersContract } from "../../src/testing/index.js";

describeConversationOwnersContract("memory", async () => createMemoryConversationOwners());
