import { TerminalError } from "../core/errors.js";
import { previewValue } from "../core/preview.js";

/** Requests whose response names a session the client now has. */
const CREATING = new Set(["session/new", "session/fork"]);
/** Requests naming, in their params, a session the client opens again. */
const REOPENING = new Set(["session/load", "session/resume"]);

type SendRequest = (
  method: string,
  params?: unknown,
  mapResponse?: (response: unknown) => unknown,
  options?: unknown,
) => Promise<unknown>;

/** The part of the SDK's ConnectionContext this module wraps: every request the client sends. */
export interface RequestSender {
  sendRequest: SendRequest;
}

const sessionIdIn = (value: unknown): string | undefined => {
  const id =
    typeof value === "object" && value !== null && "sessionId" in value
      ? value.sessionId
      : undefined;
  return typeof id === "string" && id.length > 0 ? id : undefined;
};

/**
 * The sessions of one connection: those the client created or opened through `session/new`,
 * `session/fork` (known once the agent's answer arrives, before the caller sees it),
 * `session/load` and `session/resume` (known as the request leaves, since the agent may use
 * the session while loading it; forgotten again if the agent refuses).
 */
export class SessionRegistry {
  readonly #sessions = new Set<string>();

  /** `onRefused` is told of a session the agent refused to load or resume, to release what it started meanwhile. */
  constructor(private readonly onRefused: (sessionId: string) => void = () => {}) {}

  has(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  add(sessionId: string): void {
    this.#sessions.add(sessionId);
  }

  /**
   * Watches every request `sender` sends from now on. The SDK has no hook for a client's own
   * requests, so this wraps the connection's `sendRequest` (a public method of its
   * ConnectionContext, through which every `ClientContext` request goes) on that one instance.
   */
  observe(sender: RequestSender): void {
    if (typeof sender.sendRequest !== "function") {
      throw new Error(
        "acp-terminal cannot see the sessions a client opens with this @agentclientprotocol/sdk version " +
          "(its connection context has no sendRequest); use the SDK version acp-terminal was built for (2.4.x).",
      );
    }
    const send = sender.sendRequest.bind(sender);
    sender.sendRequest = (method, params, mapResponse, options) => {
      if (CREATING.has(method)) {
        const learn = (response: unknown) => {
          const id = sessionIdIn(response);
          if (id !== undefined) {
            this.#sessions.add(id);
          }
          return mapResponse ? mapResponse(response) : response;
        };
        return send(method, params, learn, options);
      }
      const reopened = REOPENING.has(method) ? sessionIdIn(params) : undefined;
      if (reopened === undefined || this.#sessions.has(reopened)) {
        return send(method, params, mapResponse, options);
      }
      this.#sessions.add(reopened);
      const sent = send(method, params, mapResponse, options);
      sent.catch(() => {
        this.#sessions.delete(reopened);
        this.onRefused(reopened);
      });
      return sent;
    };
  }

  /** Throws -32602 material (`invalid_params` on `owner.sessionId`) for a session this connection does not have. */
  check(sessionId: string): void {
    if (this.#sessions.has(sessionId)) {
      return;
    }
    throw new TerminalError(
      "invalid_params",
      `Invalid owner.sessionId: ${previewValue(sessionId, 200)} is not a session of this connection; terminals live only in sessions the client created or loaded (session/new, session/load, session/resume, session/fork)`,
      { field: "owner.sessionId", sessionId: previewValue(sessionId, 200) },
    );
  }
}
