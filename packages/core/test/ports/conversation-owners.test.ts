import { createMemoryConversationOwners } from "../../src/index.js";
import { describeConversationOwnersContract } from "../../src/testing/index.js";

describeConversationOwnersContract("memory", async () => createMemoryConversationOwners());
