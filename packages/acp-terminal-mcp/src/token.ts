import { createHash, timingSafeEqual } from "node:crypto";
import {
  OAuthError,
  OAuthErrorCode,
  type AuthInfo,
  type OAuthTokenVerifier,
} from "@modelcontextprotocol/server";

/** How long a verified request's AuthInfo claims to be valid (the SDK refuses tokens without an expiry). */
const AUTH_VALIDITY_S = 3600;

/** Accepts exactly one static bearer token, compared in constant time. */
export function staticTokenVerifier(expected: string): OAuthTokenVerifier {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  const expectedDigest = digest(expected);
  return {
    verifyAccessToken: async (token: string): Promise<AuthInfo> => {
      if (!timingSafeEqual(digest(token), expectedDigest)) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, "wrong bearer token");
      }
      return {
        token,
        clientId: "bearer",
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + AUTH_VALIDITY_S,
      };
    },
  };
}
