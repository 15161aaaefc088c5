// Sign up, sign in, and a new password by a mailed code.
import {afterSignIn, credentials, post, signIn} from "../api.js";
import {btn, field, formError, h, showErrors} from "../dom.js";
import {providerName, startProviderSignIn, webProviders} from "../providers.js";

/** `problem`: an error to show at once (a provider sign-in that came back refused). */
export function authView(problem) {
  let mode = "signin";
  const name = h("input", {name: "name", autocomplete: "name", maxlength: "80"});
  const email = h("input", {name: "email", type: "email", autocomplete: "email", required: true, maxlength: "254"});
  const password = h("input", {name: "password", type: "password", autocomplete: "current-password", required: true, minlength: "8", maxlength: "72"});
  const nameField = field("Name", name);
  const summary = formError();
  const submit = h("button", {type: "submit", class: "primary"}, "Sign in");
  const heading = h("h1", "Sign in");
  const toggle = btn({class: "link"}, "New here? Create an account");
  const forgot = btn({class: "link"}, "Forgot your password?");
  const form = h("form", {class: "card narrow", novalidate: true}, heading, summary, nameField, field("Email", email), field("Password", password), submit, toggle, forgot);

  const setMode = (next) => {
    mode = next;
    nameField.hidden = mode === "signin";
    name.required = mode === "signup";
    password.autocomplete = mode === "signin" ? "current-password" : "new-password";
    heading.textContent = submit.textContent = mode === "signin" ? "Sign in" : "Create account";
    toggle.textContent = mode === "signin" ? "New here? Create an account" : "Have an account? Sign in";
    forgot.hidden = mode !== "signin";
    showErrors(form, null, summary);
  };
  toggle.addEventListener("click", () => setMode(mode === "signin" ? "signup" : "signin"));
  const section = h("section", {class: "auth"});
  forgot.addEventListener("click", () => {
    const reset = resetForm(email.value, () => {
      const fresh = authView().element;
      section.replaceWith(fresh);
      fresh.querySelector('input[name="email"]')?.focus();
    });
    section.replaceChildren(reset);
    reset.querySelector("input")?.focus();
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      const result = mode === "signin"
        ? await post("/v1/auth/login", credentials(email.value, password.value))
        : await post("/v1/auth/register", {name: name.value, email: email.value, password: password.value});
      signIn(result);
      location.hash = afterSignIn.peek() ?? (mode === "signup" ? "#/me" : "#/");
    } catch (error) {
      showErrors(form, error, summary);
      // A suspended person has no session; they may still appeal, signing with their password.
      if (error.code === "account_suspended" && !section.querySelector("form.appeal")) form.after(appealForm(email.value, password.value));
    } finally {
      submit.disabled = false;
    }
  });
  setMode("signin");
  const providers = webProviders();
  const others = providers.length ? h("div", {class: "card narrow providers"}, h("h2", "Or continue with"),
    providers.map((p) => btn({class: `provider ${p.provider}`, onclick: () => startProviderSignIn(p)}, `Continue with ${providerName(p.provider)}`))) : null;
  if (problem) showErrors(form, problem, summary);
  section.append(h("p", {class: "tagline"}, "Find people to play sport with, near you."), form, ...(others ? [others] : []));
  return {element: section};
}

/** A new password in two steps: the email (a code is mailed to it), then the code
 * and the new password; then signed in with it. `back` returns to signing in. */
function resetForm(knownEmail, back) {
  const email = h("input", {name: "email", type: "email", autocomplete: "email", required: true, maxlength: "254", value: knownEmail || undefined});
  const code = h("input", {name: "code", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: "6", required: true});
  const password = h("input", {name: "password", type: "password", autocomplete: "new-password", required: true, minlength: "8", maxlength: "72"});
  const summary = formError();
  const note = h("p", {role: "status"});
  const codeFields = h("div", {hidden: true}, field("Code from the mail", code), field("New password", password));
  const submit = h("button", {type: "submit", class: "primary"}, "Mail me a code");
  const cancel = btn({class: "link", onclick: back}, "Back to sign in");
  const form = h("form", {class: "card narrow", novalidate: true}, h("h1", "New password"),
    h("p", "We mail a 6-digit code to your address; it works once, within 15 minutes."), summary, field("Email", email), note, codeFields, submit, cancel);
  let mailed = false;
  // The code belongs to this request: only this page holds its id.
  let resetID = null;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      if (!mailed) {
        // This browser's device key (if it signed in here before) lets the account know it:
        // strangers asking for codes for the email do not use up its share.
        const started = await post("/v1/auth/password/reset/start", credentials(email.value));
        resetID = started?.reset_id ?? null;
        mailed = true;
        showErrors(form, null, summary);
        note.textContent = "If this address has an account, a code is on its way to it." + (started?.mark ? ` Its subject ends with (${started.mark}): take the code of that mail.` : "");
        email.readOnly = true;
        codeFields.hidden = false;
        submit.textContent = "Set new password";
        code.focus();
      } else {
        await post("/v1/auth/password/reset/finish", {...credentials(email.value, password.value), code: code.value.trim(), reset_id: resetID});
        // The code is used: whatever happens next, it is not sent again.
        codeFields.hidden = true;
        submit.hidden = true;
        cancel.textContent = "Sign in";
        note.textContent = "Your new password is set.";
        try {
          // Every session ended with the old password: sign in with the new one.
          signIn(await post("/v1/auth/login", credentials(email.value, password.value)));
          location.hash = afterSignIn.peek() ?? "#/";
        } catch {
          note.textContent = "Your new password is set: sign in with it.";
          cancel.focus();
        }
      }
    } catch (error) {
      showErrors(form, error, summary);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

/** The appeal of a suspension, sent with the email and password just refused. */
function appealForm(email, password) {
  const statement = h("textarea", {name: "statement", rows: "4", maxlength: "2000", required: true});
  const summary = formError();
  const done = h("p", {class: "status", role: "status"});
  const send = h("button", {type: "submit", class: "primary"}, "Send appeal");
  const form = h("form", {class: "card narrow appeal", novalidate: true},
    h("h2", "Appeal"),
    h("p", "Tell the moderators why they should look again. Another moderator than the one who decided will read it; you can appeal once."),
    summary, field("Your appeal", statement), send, done);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    send.disabled = true;
    try {
      await post("/v1/appeals", {email, password, statement: statement.value});
      showErrors(form, null, summary);
      done.textContent = "Your appeal was sent. You will be told the decision.";
      statement.disabled = true;
    } catch (error) {
      showErrors(form, error, summary);
      send.disabled = false;
    }
  });
  return form;
}
