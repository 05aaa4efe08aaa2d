/**
 * The client's address as Vidhost counts it (per-address rate limits, analytics viewers): the
 * socket's, or, when the socket is a trusted reverse proxy, the last X-Forwarded-For hop, the one
 * that proxy appended (earlier hops come from the client and prove nothing). `socketAddress` is ""
 * when the socket is unknown (a request handled in-process): "" it stays.
 */
export function clientAddress(request: Request, socketAddress: string, trustedProxies: ReadonlySet<string>): string {
  const socket = socketAddress.replace(/^::ffff:/, "");
  if (!trustedProxies.has(socket)) return socket;
  const forwarded = request.headers.get("x-forwarded-for");
  const hop = forwarded ? (forwarded.split(",").pop() ?? "").trim() : "";
  return hop || socket;
}
