import type { RequestPermissionRequest } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { PermissionAsk } from "../ask/permission-ask.js";
import { describeV2Subject } from "./v2-permission-subject.js";

/**
 * An ACP v2 permission request as the user's policy reads it: its title, the id of the tool call
 * its subject names (`subject.toolCall.toolCallId`, or `subject.toolCallId`; none for a command),
 * its options, and its description and subject as lines to show (describeV2Subject).
 */
export function permissionAsk(request: RequestPermissionRequest): PermissionAsk {
  const subject: unknown = request.subject;
  const toolCall: unknown = Reflect.get(Object(subject), "toolCall");
  const toolCallId: unknown =
    Reflect.get(Object(toolCall), "toolCallId") ?? Reflect.get(Object(subject), "toolCallId");
  return {
    toolCall: {
      toolCallId: typeof toolCallId === "string" ? toolCallId : "",
      title: request.title,
    },
    options: request.options,
    details: describeV2Subject(request),
  };
}
