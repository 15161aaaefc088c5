// The public API, as any client sees it: JSON, errors as {"error": {"code",
// "message", "fields"?}}. The session is the server's HttpOnly cookie (asked for with
// `SportLook-Session: cookie`): no script here ever holds the token. localStorage keeps
// only whether this browser is signed in, so tabs follow one another.

const SIGNED_IN = "sportlook.signedIn";

// A token an earlier version kept in localStorage is ended on the server and forgotten.
const OLD_TOKEN = "sportlook.token";
if (localStorage.getItem(OLD_TOKEN)) {
  const token = localStorage.getItem(OLD_TOKEN);
  localStorage.removeItem(OLD_TOKEN);
  fetch("/v1/auth/logout", {method: "POST", headers: {Authorization: `Bearer ${token}`}}).catch(() => {});
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `The server answered ${status}.`);
    this.status = status;
    this.code = body?.error?.code ?? "http_" + status;
    this.fields = body?.error?.fields ?? {};
  }
}

/** Where a link opened while signed out leads once signed in. */
const AFTER_SIGN_IN = "sportlook.afterSignIn";
export const afterSignIn = {
  remember(hash) { sessionStorage.setItem(AFTER_SIGN_IN, hash); },
  peek() { return sessionStorage.getItem(AFTER_SIGN_IN); },
  /** The screen was shown: forget it. */
  done(hash) { if (sessionStorage.getItem(AFTER_SIGN_IN) === hash) sessionStorage.removeItem(AFTER_SIGN_IN); },
};

export const session = {
  get signedIn() { return localStorage.getItem(SIGNED_IN) === "1"; },
  set signedIn(value) { value ? localStorage.setItem(SIGNED_IN, "1") : localStorage.removeItem(SIGNED_IN); },
  user: null,
};

/** Calls the API; resolves with the JSON body (null for 204 and an empty 202), rejects with ApiError. */
export async function api(method, path, body, {signal} = {}) {
  // Same-origin requests carry the session cookie; a sign-in answered with one sets it.
  const headers = {Accept: "application/json", "SportLook-Session": "cookie"};
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) { headers["Content-Type"] = "application/json"; payload = JSON.stringify(body); }
  let response;
  try {
    response = await fetch(path, {method, headers, body: payload, signal, credentials: "same-origin"});
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, {error: {code: "offline", message: "The server cannot be reached; check the connection."}});
  }
  if (response.status === 204) return null;
  const json = await response.json().catch(() => null);
  // While the database fails over, writes are refused and reads go on: the page says so.
  if (response.status === 503 && json?.error?.code === "read_only") dispatchEvent(new Event("readonly"));
  else if (response.ok && method !== "GET") dispatchEvent(new Event("writable"));
  if (!response.ok) {
    if (response.status === 401 && session.signedIn) { session.signedIn = false; session.user = null; dispatchEvent(new Event("signedout")); }
    throw new ApiError(response.status, json);
  }
  return json;
}

export const get = (path, options) => api("GET", path, undefined, options);
export const post = (path, body) => api("POST", path, body ?? {});
export const patch = (path, body) => api("PATCH", path, body);
export const del = (path) => api("DELETE", path);

/** A query string from an object, leaving out empty values. */
export function query(parameters) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(parameters)) if (value !== undefined && value !== null && value !== "") search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : "";
}

let sports;
/** The sports catalogue, fetched once. */
export async function sportCatalogue() {
  sports ??= get("/v1/sports").then((page) => page.items);
  return sports;
}

const DEVICE = "sportlook.device";

/** What a password sign-in sends: the email, the password and this browser's device key. */
export function credentials(email, password) {
  const key = localStorage.getItem(DEVICE);
  return key ? {email, password, device_key: key} : {email, password};
}

/** Signs in with an answer that set the session cookie (register, login, provider). The
 * device key is kept past sign-out: strangers' wrong passwords never lock this browser out. */
export function signIn(result) {
  if (result.device_key) localStorage.setItem(DEVICE, result.device_key);
  session.signedIn = true;
  session.user = result.user;
  dispatchEvent(new Event("signedin"));
}

/** Signs out: the session ends on the server, then here. */
export async function signOut() {
  try { await post("/v1/auth/logout"); } catch { /* ended already */ }
  session.signedIn = false;
  session.user = null;
  dispatchEvent(new Event("signedout"));
}

/** The signed-in user's profile, read once per page load. */
export async function me() {
  session.user ??= await get("/v1/me");
  return session.user;
}
