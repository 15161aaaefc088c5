// Groups: nearby, the caller's and a new one; a group's page with joining, and for
// admins the requests, members and invite link.
import {api, del, get, me, patch, post, query, sportCatalogue} from "../api.js";
import {btn, distance, field, h, later, option, replace, showErrors, status, when} from "../dom.js";
import {chatPanel} from "./chat.js";
import {reportControl} from "./report.js";

const POLICY = {public: "Anyone can join", approval: "Admins accept new members", invite: "By invite link only"};

export function groupsView() {
  const list = h("ul", {class: "groups"});
  const note = status("Loading your groups…");
  const near = h("ul", {class: "groups-nearby"});
  const nearNote = status("Looking for groups near you…");
  const nearSport = h("select", {name: "sport"}, option("", "Any sport"));
  let generation = 0;
  const loadNearby = () => me().then(async (user) => {
    if (!user.location) { replace(nearNote, "Set your area on your profile to see groups near you."); return; }
    const mine = ++generation;
    const page = await get(`/v1/groups/nearby${query({lat: user.location.lat, lon: user.location.lon, radius_km: 25, limit: 50, sport: nearSport.value})}`);
    if (mine !== generation) return;
    replace(near, page.items.map((g) => h("li", h("a", {href: `#/groups/${g.id}`}, g.name),
      h("span", {class: "meta"}, ` · ${distance(g.distance_m)} · ${g.member_count} member${g.member_count === 1 ? "" : "s"} · ${POLICY[g.policy]}`))));
    replace(nearNote, page.items.length ? "" : "No listed groups within 25 km yet — start one!");
  }).catch((e) => replace(nearNote, e.message));
  nearSport.addEventListener("change", loadNearby);
  const name = h("input", {name: "name", required: true, maxlength: 80, autocomplete: "off"});
  const description = h("textarea", {name: "description", maxlength: 2000, rows: 3});
  const sport = h("select", {name: "sports"}, option("", "Any sport"));
  const policy = h("select", {name: "policy"}, Object.entries(POLICY).map(([value, label]) => h("option", {value, selected: value === "approval"}, label)));
  const visibility = h("select", {name: "visibility"}, option("listed", "Listed: people nearby find it"), option("unlisted", "Unlisted: only by its link"));
  const cover = h("input", {name: "cover_id", type: "file", accept: "image/jpeg,image/png"});
  const summary = status("");
  const form = h("form", {class: "new-group"},
    h("h2", "Start a group"),
    field("Group name", name), field("About the group", description), field("Sport", sport), field("Who can join", policy), field("Visibility", visibility),
    field("Cover photo", cover), summary, h("button", {type: "submit", class: "primary"}, "Create group"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const user = await me();
      if (!user.location) { replace(summary, "Set your area on your profile first: a group's home is near it."); return; }
      const body = {name: name.value, description: description.value, sports: sport.value ? [sport.value] : [],
        location: user.location, policy: policy.value, visibility: visibility.value};
      if (cover.files[0]) {
        const upload = new FormData();
        upload.append("file", cover.files[0]);
        body.cover_id = (await api("POST", "/v1/media?use=cover", upload)).id;
      }
      const group = await post("/v1/groups", body);
      location.hash = `#/groups/${group.id}`;
    } catch (e) { showErrors(form, e, summary); }
  });
  sportCatalogue().then((sports) => {
    sport.append(...sports.map((s) => option(s.slug, s.name)));
    nearSport.append(...sports.map((s) => option(s.slug, s.name)));
  }).catch(() => {});
  loadNearby();
  get("/v1/me/groups?limit=100").then((page) => {
    replace(list, page.items.map((g) => h("li", h("a", {href: `#/groups/${g.id}`}, g.name), h("span", {class: "meta"}, ` · ${g.member_count} member${g.member_count === 1 ? "" : "s"} · ${g.my_role}`))));
    replace(note, page.items.length ? "" : "You are in no group yet.");
  }).catch((e) => replace(note, e.message));
  return {element: h("section", {class: "groups-view"}, h("h1", "Groups"),
    h("h2", "Groups nearby"), h("form", {class: "filters", onsubmit: (e) => e.preventDefault()}, field("Sport nearby", nearSport)), nearNote, near,
    h("h2", "Your groups"), note, list, form)};
}

export function groupView(id, invite) {
  const section = h("section", {class: "group-view"});
  let stopChat = null;
  let gone = false;
  const feedback = status("Loading the group…");
  section.append(feedback);

  async function act(action) {
    try { await action(); await load(); } catch (e) { replace(feedback, e.message); }
  }

  async function load() {
    const group = await get(`/v1/groups/${id}`);
    if (gone) return;
    stopChat?.();
    stopChat = null;
    const admin = group.my_role === "owner" || group.my_role === "admin";
    const standing = group.my_role ? h("p", {class: "pill going", "data-testid": "group-role"}, group.my_role === "member" ? "You are a member" : `You are ${group.my_role === "owner" ? "the owner" : "an admin"}`)
      : group.my_request ? h("p", {class: "pill", "data-testid": "group-role"}, "You asked to join: an admin will answer") : null;
    const join = async () => {
      const answer = await post(`/v1/groups/${id}/membership`, invite ? {invite} : {});
      if (invite && answer.status === "member") history.replaceState(null, "", `#/groups/${id}`);
    };
    const actions = h("div", {class: "actions"},
      !group.my_role && !group.my_request && (group.policy !== "invite" || invite)
        ? btn({class: "primary", onclick: () => act(join)}, group.policy === "approval" && !invite ? "Ask to join" : "Join group") : null,
      group.my_role || group.my_request ? btn({onclick: () => act(() => del(`/v1/groups/${id}/membership`))}, group.my_role ? "Leave group" : "Withdraw request") : null,
      group.my_role ? btn({"aria-pressed": String(group.muted), onclick: () => act(() => group.muted ? del(`/v1/groups/${id}/mute`) : api("PUT", `/v1/groups/${id}/mute`))},
        group.muted ? "Hear of new games again" : "Mute new games") : null,
      group.my_role !== "owner" ? reportControl("group", id, `the group ${group.name}`) : null,
      group.my_role !== "owner" && group.image_url ? reportControl("photo", id, `the cover of ${group.name}`) : null);
    replace(section,
      group.image_urls ? h("img", {class: "cover", src: group.image_urls["1280"] ?? group.image_url, alt: ""}) : null,
      h("h1", group.name),
      h("p", {class: "meta"}, `${POLICY[group.policy]} · ${group.member_count} member${group.member_count === 1 ? "" : "s"} · owner ${group.owner.name}`),
      group.sports.length ? h("p", {class: "meta"}, group.sports.join(", ")) : null,
      group.description ? h("p", group.description) : null,
      standing, actions, feedback, await gamesPanel(admin), group.my_role ? later("money", (m) => m.duesPanel(group, admin)) : null);
    replace(feedback, "");
    if (admin) section.append(await adminPanel(group));
    if (group.my_role) section.append(await membersPanel(group));
    // The group's chat: its members talk there, as in an event's chat.
    if (group.my_role && !gone) {
      const user = await me();
      const chat = chatPanel(id, user, {left: "You are no longer in this group.", place: group.location, sport: group.sports[0]});
      stopChat = chat.stop;
      section.append(h("h2", "Group chat"), chat.element);
    }
  }

  // The group's coming games the caller may see; admins make new ones.
  async function gamesPanel(admin) {
    const games = await get(`/v1/groups/${id}/events?limit=50`);
    return h("div", {class: "games"}, h("h2", "Games"),
      games.items.length ? h("ul", {class: "group-games"}, games.items.map((e) => h("li", {},
        h("a", {href: `#/events/${e.id}`}, e.title), h("span", {class: "meta"}, ` · ${when(e.starts_at)}${e.members_only ? " · members only" : ""}${e.my_status ? ` · you: ${e.my_status}` : ""}`))))
        : h("p", "No games coming."),
      admin ? h("p", h("a", {class: "button", href: `#/groups/${id}/events/new`}, "New game for the group")) : null);
  }

  async function adminPanel(group) {
    const link = h("p", {class: "invite-link", "data-testid": "invite-link"});
    const requests = await get(`/v1/groups/${id}/requests?limit=100`);
    const list = h("ul", {class: "requests"}, requests.items.map((r) => h("li", {},
      h("strong", r.user.name), r.message ? h("span", {class: "meta"}, ` — ${r.message}`) : null, " ",
      btn({class: "primary", onclick: () => act(() => post(`/v1/groups/${id}/requests/${r.user.id}`))}, `Accept ${r.user.name}`),
      btn({onclick: () => act(() => del(`/v1/groups/${id}/requests/${r.user.id}`))}, `Refuse ${r.user.name}`))));
    const makeLink = async () => {
      try {
        const {invite: secret} = await post(`/v1/groups/${id}/invite`);
        replace(link, "Share this link (it is shown once; a new one ends it): ", h("code", `${location.origin}/#/groups/${id}/join/${secret}`));
      } catch (e) { replace(feedback, e.message); }
    };
    return h("div", {class: "admin"},
      h("h2", "Requests to join"), requests.items.length ? list : h("p", "No requests waiting."),
      h("h2", "Invite link"),
      h("div", {class: "actions"},
        btn({onclick: makeLink}, "New invite link"),
        btn({onclick: () => act(() => del(`/v1/groups/${id}/invite`))}, "Revoke invite link")),
      link);
  }

  async function membersPanel(group) {
    const members = await get(`/v1/groups/${id}/members?limit=100`);
    const mine = group.my_role;
    return h("div", {class: "members"}, h("h2", "Members"), h("ul", members.items.map((m) => h("li", {},
      h("strong", m.user.name), h("span", {class: "meta"}, ` · ${m.role} · since ${when(m.joined_at)}`), " ",
      mine === "owner" && m.role !== "owner" ? btn({onclick: () => act(() => patch(`/v1/groups/${id}/members/${m.user.id}`, {role: m.role === "admin" ? "member" : "admin"}))},
        m.role === "admin" ? `Make ${m.user.name} a member` : `Make ${m.user.name} an admin`) : null,
      (mine === "owner" && m.role !== "owner") || (mine === "admin" && m.role === "member")
        ? btn({onclick: () => act(() => del(`/v1/groups/${id}/members/${m.user.id}`))}, `Remove ${m.user.name}`) : null))));
  }

  load().catch((e) => replace(feedback, e.status === 404 ? "This group does not exist (any more)." : e.message));
  return {element: section, leave: () => { gone = true; stopChat?.(); }};
}
