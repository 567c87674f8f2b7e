// Bundled with esbuild for the browser; the page reports what the API answered.
import { createPlatformClient } from "@platform-api/client";

const params = new URLSearchParams(location.search);
const client = createPlatformClient({
  baseUrl: params.get("api"),
  apiKey: params.get("key"),
  maxRetries: 0,
});
window.result = client.GET("/v1/mailboxes").then(
  ({ data, error, response }) => ({
    status: response.status,
    emails: data?.mailboxes.map((m) => m.email),
    code: error?.code,
    remaining: response.headers.get("ratelimit-remaining"),
  }),
  (e) => ({ failed: String(e) }),
);
