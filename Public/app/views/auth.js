// Sign up and sign in.
import {post, signIn} from "../api.js";
import {field, h, showErrors} from "../dom.js";
import {providerName, startProviderSignIn, webProviders} from "../providers.js";

/** `problem`: an error to show at once (a provider sign-in that came back refused). */
export function authView(problem) {
  let mode = "signin";
  const name = h("input", {name: "name", autocomplete: "name", maxlength: "80"});
  const email = h("input", {name: "email", type: "email", autocomplete: "email", required: true, maxlength: "254"});
  const password = h("input", {name: "password", type: "password", autocomplete: "current-password", required: true, minlength: "8", maxlength: "72"});
  const nameField = field("Name", name);
  const summary = h("p", {class: "form-error", role: "alert", hidden: true});
  const submit = h("button", {type: "submit", class: "primary"}, "Sign in");
  const heading = h("h1", {}, "Sign in");
  const toggle = h("button", {type: "button", class: "link"}, "New here? Create an account");
  const form = h("form", {class: "card narrow", novalidate: true}, heading, summary, nameField, field("Email", email), field("Password", password), submit, toggle);

  const setMode = (next) => {
    mode = next;
    nameField.hidden = mode === "signin";
    name.required = mode === "signup";
    password.autocomplete = mode === "signin" ? "current-password" : "new-password";
    heading.textContent = submit.textContent = mode === "signin" ? "Sign in" : "Create account";
    toggle.textContent = mode === "signin" ? "New here? Create an account" : "Have an account? Sign in";
    showErrors(form, null, summary);
  };
  toggle.addEventListener("click", () => setMode(mode === "signin" ? "signup" : "signin"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      const result = mode === "signin"
        ? await post("/v1/auth/login", {email: email.value, password: password.value})
        : await post("/v1/auth/register", {name: name.value, email: email.value, password: password.value});
      signIn(result);
      location.hash = mode === "signup" ? "#/me" : "#/";
    } catch (error) {
      showErrors(form, error, summary);
    } finally {
      submit.disabled = false;
    }
  });
  setMode("signin");
  const providers = webProviders();
  const others = providers.length ? h("div", {class: "card narrow providers"}, h("h2", {}, "Or continue with"),
    providers.map((p) => h("button", {type: "button", class: `provider ${p.provider}`, onclick: () => startProviderSignIn(p)}, `Continue with ${providerName(p.provider)}`))) : null;
  if (problem) showErrors(form, problem, summary);
  return {element: h("section", {class: "auth"}, h("p", {class: "tagline"}, "Find people to play sport with, near you."), form, others)};
}
