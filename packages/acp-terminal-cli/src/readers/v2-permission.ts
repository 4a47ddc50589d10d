import type { RequestPermissionRequest } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { printable } from "acp-terminal/approval";
import type { PermissionAsk } from "../ask/permission-ask.js";
import type { DiffShown } from "../view/renderer.js";
import { describeSubject, permissionSubject } from "./permission-subject.js";

/**
 * An ACP v2 permission request as the user's policy reads it: its title, the id of the tool call
 * its subject names (`subject.toolCall.toolCallId`, or `subject.toolCallId`; none for a command),
 * its options, and its description and subject as lines to show (describeSubject; `known`: the
 * diffs an update showed for the tool call, which a request may leave out).
 */
export function permissionAsk(
  request: RequestPermissionRequest,
  known: (toolCallId: string) => DiffShown[] = () => [],
): PermissionAsk {
  const given: unknown = request.subject;
  const toolCall: unknown = Reflect.get(Object(given), "toolCall");
  const toolCallId: unknown =
    Reflect.get(Object(toolCall), "toolCallId") ?? Reflect.get(Object(given), "toolCallId");
  const subject =
    given === undefined || given === null
      ? undefined
      : permissionSubject(
          { subject: given },
          typeof toolCallId === "string" ? known(toolCallId) : [],
        );
  return {
    toolCall: {
      toolCallId: typeof toolCallId === "string" ? toolCallId : "",
      title: request.title,
    },
    options: request.options,
    details: [
      ...(typeof request.description === "string" && request.description !== ""
        ? [`  description: ${printable(request.description)}`]
        : []),
      ...(subject === undefined
        ? ["  subject: none given (only the title above says what this is)"]
        : describeSubject(subject)),
    ],
    ...(subject === undefined ? {} : { subject }),
  };
}
