/** An access token of a running Node-RED's adminAuth user, as the editor gets one (POST /auth/token). */
export async function adminToken(url: string, username: string, password: string, scope = '*'): Promise<string> {
  const res = await fetch(`${url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope, username, password }),
  });
  if (!res.ok) throw new Error(`token for ${username}: HTTP ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
