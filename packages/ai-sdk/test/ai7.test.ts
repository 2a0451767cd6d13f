import { AI7 } from "./support/sdk.js";
import { describeToolCalling } from "./support/tool-calling-suite.js";

describeToolCalling(AI7);
