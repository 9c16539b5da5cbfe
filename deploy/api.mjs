// One JSON request to the Supabase project's API with a key, as the deploy
// scripts make them: the answer's JSON, or an Error that says which request
// was refused, with the API's own message (its `message`, else its first
// words) and the HTTP status as `status`.

export async function callApi(base, key, method, path, body, headers = {}) {
  let response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: { apikey: key, Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new Error(`${method} ${path} failed: ${error.cause?.message ?? error.message}`);
  }
  const text = await response.text();
  if (!response.ok) {
    let message = text.slice(0, 200);
    try {
      message = JSON.parse(text).message ?? message;
    } catch {
      // Not JSON: the text itself.
    }
    throw Object.assign(new Error(`${method} ${path} answered HTTP ${response.status}: ${message}`), { status: response.status });
  }
  return text ? JSON.parse(text) : null;
}
