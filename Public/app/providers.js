// Sign-in with Apple, Google and Facebook in the browser, with no script of theirs:
// the page goes to the provider's authorization endpoint and comes back to / with
// the token in the fragment (never sent to any server but ours), checked against the
// state we stored; then POST /v1/auth/provider as any client does.
import {post, signIn} from "./api.js";

const KEY = "sportlook.provider";
const NAMES = {apple: "Apple", google: "Google", facebook: "Facebook"};

/** The providers this server offers on the web: [{provider, client_id, authorize_url}]. */
export function webProviders() {
  try {
    const list = JSON.parse(document.querySelector('meta[name="sportlook-providers"]')?.content || "[]");
    return Array.isArray(list) ? list.filter((p) => NAMES[p.provider] && p.client_id && p.authorize_url) : [];
  } catch {
    return [];
  }
}

export const providerName = (provider) => NAMES[provider];

function random() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, (c) => ({"+": "-", "/": "_", "=": ""})[c]);
}

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Leaves for the provider's sign-in page. */
export async function startProviderSignIn({provider, client_id: clientID, authorize_url: authorizeURL}) {
  const state = random();
  const nonce = random();
  sessionStorage.setItem(KEY, JSON.stringify({provider, state, nonce}));
  const url = new URL(authorizeURL);
  const query = {client_id: clientID, redirect_uri: `${location.origin}/`, state};
  if (provider === "google") Object.assign(query, {response_type: "id_token", scope: "openid email profile", nonce, prompt: "select_account"});
  // Apple puts the nonce it is given in the token: it gets the nonce's SHA-256, we send the nonce.
  if (provider === "apple") Object.assign(query, {response_type: "code id_token", response_mode: "fragment", nonce: await sha256Hex(nonce)});
  if (provider === "facebook") Object.assign(query, {response_type: "token", scope: "email"});
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  location.assign(url.toString());
}

/**
 * Finishes a sign-in the provider sent back to us (a fragment with a token and our
 * state); null when the page was not opened that way. Rejects with the API's error.
 */
export async function finishProviderSignIn() {
  if (!/^#(.*&)?(id_token|access_token|error)=/.test(location.hash)) return null;
  const answer = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, "", `${location.pathname}#/signin`);
  const stored = JSON.parse(sessionStorage.getItem(KEY) ?? "null");
  sessionStorage.removeItem(KEY);
  if (!stored || answer.get("state") !== stored.state) {
    throw {message: "That sign-in did not start here; try again.", fields: {}};
  }
  if (answer.get("error")) throw {message: `${NAMES[stored.provider]} did not sign you in (${answer.get("error")}).`, fields: {}};
  const body = {provider: stored.provider};
  if (answer.get("id_token")) Object.assign(body, {id_token: answer.get("id_token"), nonce: stored.nonce});
  else body.access_token = answer.get("access_token");
  const result = await post("/v1/auth/provider", body);
  signIn(result);
  return result;
}
