// The resources a connection's tokens are for (RFC 8707): MCP, the REST base, and the service as a
// whole. The authorization server issues tokens for them and the API accepts tokens for them.
export function resourcesOf(baseUrl: string) {
  return { mcp: `${baseUrl}/mcp`, rest: `${baseUrl}/v1/agent-access`, root: baseUrl };
}
