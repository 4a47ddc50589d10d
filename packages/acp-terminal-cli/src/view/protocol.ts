/** The ACP version a driver speaks, as the view names it. */
export type ProtocolName = "v1" | "v2";
