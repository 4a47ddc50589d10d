export { demoAgent, type DemoAgent, type DemoAgentOptions } from "./agent.js";
export {
  parseCommand,
  COMMAND_HELP,
  DEFAULT_RUN_TIMEOUT_S,
  DEFAULT_LOG_LINES,
  MAX_LOG_LINES,
  type Command,
} from "./parse.js";
export { TOUR } from "./demo/tour.js";
