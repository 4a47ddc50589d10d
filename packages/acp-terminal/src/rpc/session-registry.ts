import { TerminalError } from "../core/errors.js";
import { previewValue } from "../core/preview.js";

/** Requests whose response names a session the client now has. */
const CREATING = new Set(["session/new", "session/fork"]);
/** Requests naming, in their params, a session the client opens again. */
const REOPENING = new Set(["session/load", "session/resume"]);
/** Requests naming, in their params, a session the client ends ("free the resources associated with it"). */
const ENDING = new Set(["session/close", "session/delete"]);
/** The agent does not know the session: it is gone all the same. */
const RESOURCE_NOT_FOUND = -32002;

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
 * the session while loading it; forgotten again if the agent refuses). A session the client closes
 * or deletes (`session/close`, `session/delete`) is forgotten once the agent answers, or answers
 * that it does not know it (-32002).
 */
export class SessionRegistry {
  readonly #sessions = new Set<string>();

  /**
   * `onGone` is told of a session that ended: one the agent refused to load or resume (to release
   * what it started meanwhile), and one the client closed or deleted.
   */
  constructor(
    private readonly onGone: (sessionId: string, why: "refused" | "closed") => void = () => {},
  ) {}

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
      const ending = ENDING.has(method) ? sessionIdIn(params) : undefined;
      if (ending !== undefined) {
        const sent = send(method, params, mapResponse, options);
        const forget = () => {
          if (this.#sessions.delete(ending)) {
            this.onGone(ending, "closed");
          }
        };
        sent.then(forget, (error: unknown) => {
          const code = typeof error === "object" && error !== null && "code" in error && error.code;
          if (code === RESOURCE_NOT_FOUND) {
            forget();
          }
        });
        return sent;
      }
      const reopened = REOPENING.has(method) ? sessionIdIn(params) : undefined;
      if (reopened === undefined || this.#sessions.has(reopened)) {
        return send(method, params, mapResponse, options);
      }
      this.#sessions.add(reopened);
      const sent = send(method, params, mapResponse, options);
      sent.catch(() => {
        this.#sessions.delete(reopened);
        this.onGone(reopened, "refused");
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
