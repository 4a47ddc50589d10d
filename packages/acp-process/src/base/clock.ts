// The clock (timestamps, TTLs, timeouts; tests inject a ManualClock) is defined once, in acp-terminal.
export {
  ManualClock,
  MAX_TIMER_STEP_MS,
  repeatOnClock,
  systemClock,
  type Clock,
} from "acp-terminal/internal";
