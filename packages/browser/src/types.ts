// The records @kxm/browser passes around: what Steel says of a session, and what KXM tracks of it.

/** A session as Steel describes it (only the fields KXM reads). */
export interface SteelSession {
  id: string;
  /** ISO time the server gives; absent or unreadable on some deployments. */
  createdAt?: string;
  /** `live`, `released`, `failed`, ... as the server says; absent on some deployments. */
  status?: string;
  /** The session's timeout in milliseconds, when the server says it. */
  timeoutMs?: number;
}

/** Who controls a session (the guide's diagram). */
export type ControlState = "AGENT_CONTROL" | "HUMAN_CONTROL" | "VERIFY_AUTHENTICATION" | "RELEASED";

/** What the tracker holds of one session KXM created or took over. Times are epoch milliseconds. */
export interface TrackedSession {
  id: string;
  /** The deployment's origin and path prefix, such as `https://steel.example.com`. */
  deployment: string;
  createdAt: number;
  lastActivityAt: number;
  timeoutMs: number;
  state: ControlState;
  /** Why the last takeover was requested. */
  reason?: string;
  /** Free text naming who created it: a project root, an agent id. */
  owner?: string;
  releasedAt?: number;
  releaseCause?: string;
}

/** What the signed-in check looks for on the session's pages; at least one field. */
export interface SignedInCheck {
  /** A substring the page URL must contain. */
  url?: string;
  /** A CSS selector that must match an element on the page. */
  selector?: string;
  /** Text the page must show. */
  text?: string;
}
