// app.js — the groundwire chat page. No framework, no build step.
//
// Safety rules of this file:
//  - Text from the server or the knowledge base is only ever put on screen
//    with textContent / createElement, never parsed as HTML.
//  - A streamed delta is shown only after the WASM stream guard (created with
//    that message's `sources`) has released it; a number it does not release
//    is never shown, only the marker. Without the guard (failed to load, or
//    not ready when the message's sources arrived) the page fails closed: it
//    shows the answer only when the server's final `response` arrives.
//  - The final text is checked again with groundwire.verify before it is
//    rendered with its numbers marked; a number that does not pass is
//    replaced by the marker, whatever the server said.
//  - Nothing shows in another order than it was verified: the guard blocks
//    a format character (a bidi control such as U+202E) in the answer (the
//    server removes them), and file names and snippets show them as
//    escapes ("\u202E", see shown), each in a <bdi dir="ltr">.

import { strings, format } from "./i18n.js";
import { groundwire, load as loadGuard } from "./groundwire.js";

const $ = (sel) => document.querySelector(sel);
const els = {
  messages: $("#messages"),
  empty: $("#empty"),
  input: $("#input"),
  send: $("#send"),
  cancel: $("#cancel"),
  composer: $("#composer"),
  conn: $("#conn-state"),
  banner: $("#guard-banner"),
  errors: $("#errors"),
  examples: $("#examples"),
  live: $("#live"),
};

// ---- state ----------------------------------------------------------------

const state = {
  lang: initialLang(),
  // The reader chose the language (the switch, ?lang=, or a choice saved
  // before): it is sent as each message's `lang`. Until then the server
  // detects each message's language (Swedish typed on an English page is
  // answered in Swedish).
  langChosen: chosenLang() !== "",
  guard: "loading", // "loading" | "ready" | "unavailable"
  guardReason: "",
  conn: "connecting",
  retryAt: 0,
  active: null, // id of the message being answered
  follow: true, // keep the newest answer in view while it grows
};
const messages = new Map(); // id → message view
const suggestions = new Map(); // suggestionId → card view

// chosenLang returns the language the reader chose: ?lang= in the URL, or
// the one the switch saved; "" when none.
function chosenLang() {
  const q = new URLSearchParams(location.search).get("lang");
  if (q === "en" || q === "sv") return q;
  try {
    const saved = localStorage.getItem("groundwire.lang");
    if (saved === "en" || saved === "sv") return saved;
  } catch {
    // storage may be blocked
  }
  return "";
}

function initialLang() {
  return chosenLang() || ((navigator.language || "").toLowerCase().startsWith("sv") ? "sv" : "en");
}

function t(key) {
  let v = strings[state.lang];
  for (const k of key.split(".")) v = v?.[k];
  if (v === undefined) {
    v = strings.en;
    for (const k of key.split(".")) v = v?.[k];
  }
  return v ?? key;
}

// shown returns s with every format character (Unicode Cf: the bidi
// controls U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C, zero-width
// spaces, …) written as a visible escape ("\\u202E"), so that a file name or
// snippet shows as it is stored and reorders nothing. Shown in a <bdi
// dir="ltr">, it cannot reorder what stands next to it either.
function shown(s) {
  return String(s ?? "").replace(/\p{Cf}/gu, (c) => `\\u${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
}

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k in e && typeof v !== "string") e[k] = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// ---- UI language ------------------------------------------------------------

function applyLang() {
  document.documentElement.lang = state.lang;
  for (const n of document.querySelectorAll("[data-i18n]")) n.textContent = t(n.dataset.i18n);
  for (const n of document.querySelectorAll("[data-i18n-placeholder]")) n.placeholder = t(n.dataset.i18nPlaceholder);
  for (const n of document.querySelectorAll("[data-i18n-aria]")) n.setAttribute("aria-label", t(n.dataset.i18nAria));
  for (const b of document.querySelectorAll("#lang button")) b.setAttribute("aria-pressed", String(b.dataset.lang === state.lang));
  renderChips();
  renderConn();
  renderBanner();
  for (const m of messages.values()) m.relabel();
  for (const s of suggestions.values()) s.relabel();
}

function setLang(lang) {
  if (lang !== "en" && lang !== "sv") return;
  state.lang = lang;
  state.langChosen = true;
  try {
    localStorage.setItem("groundwire.lang", lang);
  } catch {
    // ignore
  }
  applyLang();
}

function renderChips() {
  els.examples.replaceChildren(
    ...t("chips").map((c) =>
      el("button", {
        type: "button",
        class: "chip",
        text: c.label,
        title: c.text,
        "data-testid": "chip",
        onclick: () => {
          if (state.conn !== "open") {
            showError("offline", t("notConnected")); // what the reader typed stays
            return;
          }
          els.input.value = c.text;
          submit(c.lang);
        },
      }),
    ),
  );
}

// ---- guard ------------------------------------------------------------------

function renderBanner() {
  if (state.guard === "unavailable") {
    els.banner.textContent = format(t("banner"), { reason: state.guardReason });
    els.banner.hidden = false;
  } else {
    els.banner.hidden = true;
  }
}

loadGuard()
  .then(() => {
    state.guard = "ready";
    document.body.dataset.guard = "ready";
    // Time from navigation to a working guard, for monitoring and tests.
    performance.mark("groundwire:guard-ready");
    renderBanner();
  })
  .catch((err) => {
    state.guard = "unavailable";
    state.guardReason = String(err && err.message ? err.message : err).slice(0, 300);
    document.body.dataset.guard = "unavailable";
    renderBanner();
  });

function guardReady() {
  return state.guard === "ready" && groundwire.ready;
}

// ---- connection ---------------------------------------------------------------

let ws = null;
let attempt = 0;
let retryTimer = 0;
let countdownTimer = 0;

function wsURL() {
  const u = new URL("/ws", location.href);
  u.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  u.search = "";
  u.hash = "";
  const token = new URLSearchParams(location.search).get("token");
  if (token !== null) u.searchParams.set("token", token);
  return u.href;
}

function setConn(s) {
  state.conn = s;
  renderConn();
  els.send.disabled = s !== "open";
}

function renderConn() {
  els.conn.dataset.state = state.conn;
  if (state.conn === "reconnecting") {
    const s = Math.max(0, Math.ceil((state.retryAt - Date.now()) / 1000));
    els.conn.textContent = format(t("conn.reconnecting"), { s });
  } else {
    els.conn.textContent = t(`conn.${state.conn}`);
  }
}

// backoff returns the delay before reconnect attempt n (0-based): exponential
// from 500 ms up to 30 s, with "equal jitter" (half fixed, half random) so
// that many clients dropped together do not come back together.
function backoff(n) {
  const cap = Math.min(30000, 500 * 2 ** Math.min(n, 10));
  return cap / 2 + Math.random() * (cap / 2);
}

function connect() {
  clearTimeout(retryTimer);
  clearInterval(countdownTimer);
  setConn(attempt === 0 ? "connecting" : state.conn);
  let sock;
  try {
    sock = new WebSocket(wsURL());
  } catch (err) {
    showError("connect", String(err));
    scheduleReconnect();
    return;
  }
  ws = sock;
  sock.onopen = () => {
    if (ws !== sock) return;
    attempt = 0;
    setConn("open");
  };
  sock.onmessage = (ev) => {
    if (ws !== sock) return;
    let frame;
    try {
      frame = JSON.parse(ev.data);
    } catch {
      showError("bad_frame", String(ev.data).slice(0, 200));
      return;
    }
    handleFrame(frame);
  };
  sock.onclose = () => {
    if (ws !== sock) return;
    ws = null;
    connectionLost();
    scheduleReconnect();
  };
  sock.onerror = () => {
    // onclose follows and handles it.
  };
}

function scheduleReconnect() {
  const delay = backoff(attempt++);
  state.retryAt = Date.now() + delay;
  setConn("reconnecting");
  countdownTimer = setInterval(renderConn, 1000);
  retryTimer = setTimeout(connect, delay);
}

function send(frame) {
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  ws.send(JSON.stringify(frame));
  return true;
}

function connectionLost() {
  // every answer still streaming (a superseded one too) was cut short
  for (const m of messages.values()) if (m.statusKey === "streaming") m.interrupted();
  setActive(null);
  // A suggestion belongs to the connection that offered it: the server
  // forgets it when that connection closes, so it cannot be confirmed on
  // the next one. Withdraw every card now rather than offer a Confirm that
  // would fail.
  for (const s of suggestions.values()) s.withdraw();
}

// ---- sending ----------------------------------------------------------------

function newID() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function submit(langOverride) {
  const text = els.input.value.trim();
  if (!text) return;
  if (state.conn !== "open") {
    showError("offline", t("notConnected"));
    return;
  }
  const id = newID();
  const lang = langOverride || (state.langChosen ? state.lang : undefined);
  // A new message cancels the one that is streaming, server side: that one
  // ends when its stream_end cancelled comes, or goes on to its answer if
  // the server refuses the new message (rate_limited, …).
  if (state.active) {
    const old = messages.get(state.active);
    if (old) old.superseded = true;
  }
  if (!send({ type: "message", id, text, lang })) {
    showError("offline", t("notConnected"));
    return;
  }
  els.input.value = "";
  els.empty.hidden = true;
  els.messages.append(el("li", { class: "msg user", dataset: { role: "user" } }, el("span", { class: "who", text: t("you"), "data-i18n": "you" }), el("p", { class: "body", text })));
  const m = new MessageView(id);
  messages.set(id, m);
  els.messages.append(m.root);
  setActive(id);
  state.follow = true;
  follow();
}

// ---- scrolling ---------------------------------------------------------------

// The page follows a growing answer while the reader is at the bottom;
// scrolling up to read stops that until they scroll back down.
function atBottom() {
  const d = document.documentElement;
  return window.innerHeight + window.scrollY >= d.scrollHeight - 48;
}

function follow() {
  if (state.follow) window.scrollTo(0, document.documentElement.scrollHeight);
}

window.addEventListener("scroll", () => (state.follow = atBottom()), { passive: true });

function cancelActive() {
  if (!state.active) return;
  const m = messages.get(state.active);
  if (m) m.cancelRequested = true;
  send({ type: "cancel", id: state.active });
}

function setActive(id) {
  state.active = id;
  els.cancel.hidden = !id;
  els.composer.dataset.streaming = id ? "true" : "false";
}

// ---- errors -------------------------------------------------------------------

function showError(code, message) {
  const li = el("li", { class: "error", dataset: { code } }, el("strong", { text: `${code}: ` }), document.createTextNode(message));
  els.errors.append(li);
  while (els.errors.children.length > 3) els.errors.firstElementChild.remove();
  setTimeout(() => li.remove(), 15000);
}

// ---- one answer -----------------------------------------------------------------

class MessageView {
  constructor(id) {
    this.id = id;
    this.sources = null; // [{file, line, snippet}] from the `sources` frame
    this.guard = null; // WASM stream guard, null when failing closed
    this.failClosed = false;
    this.blocked = false; // local guard stopped the stream
    this.cancelRequested = false; // the reader asked to cancel it
    this.superseded = false; // the reader sent a new message while it streamed
    this.statusKey = "streaming";
    this.statusDetail = "";
    this.body = el("p", { class: "body", "aria-busy": "true" });
    this.statusEl = el("p", { class: "status", "data-testid": "status", dataset: { status: "streaming" } });
    this.citations = el("ol", { class: "citations", hidden: true });
    this.citationsWrap = el("details", { class: "sources", hidden: true }, el("summary", { text: t("sources") }), this.citations);
    this.citationsWrap.open = true;
    this.extras = el("div", { class: "extras" });
    // The arithmetic of the derived numbers, one line each, under the answer.
    this.formulas = el("ul", { class: "formulas", "data-testid": "formulas", hidden: true });
    this.root = el(
      "li",
      { class: "msg bot", dataset: { id, role: "assistant" } },
      el("span", { class: "who", text: t("bot") }),
      this.body,
      this.formulas,
      this.statusEl,
      this.citationsWrap,
      this.extras,
    );
    this.renderStatus();
  }

  relabel() {
    this.root.querySelector(".who").textContent = t("bot");
    const label = this.formulas.querySelector(".formulas-label");
    if (label) label.textContent = t("computed");
    this.citationsWrap.querySelector("summary").textContent = t("sources");
    for (const m of this.body.querySelectorAll(".marker")) {
      m.textContent = t("marker");
      m.title = t("notGrounded");
    }
    // the numbers' titles, in the new language (what they show is kept in
    // their dataset when rendered)
    for (const n of this.body.querySelectorAll(".num[data-state=grounded]")) n.title = format(t("groundedBy"), { cite: n.dataset.cite ?? "" });
    for (const n of this.body.querySelectorAll(".num[data-state=derived]")) n.title = format(t("derived"), { formula: n.dataset.formula ?? "" });
    for (const n of this.body.querySelectorAll(".num[data-state=unverified]")) n.title = t("unverified");
    this.renderStatus();
  }

  setStatus(key, detail = "") {
    this.statusKey = key;
    this.statusDetail = detail;
    this.renderStatus();
  }

  renderStatus() {
    const s = this.statusEl;
    s.dataset.status = this.statusKey;
    const label = this.statusKey === "streaming" && this.failClosed ? t("status.waiting") : t(`status.${this.statusKey}`);
    s.replaceChildren(el("span", { class: "label", text: label }));
    if (this.statusDetail) s.append(el("span", { class: "error-line", text: this.statusDetail }));
  }

  marker() {
    return el("span", { class: "num marker", text: t("marker"), dataset: { grounded: "false" }, title: t("notGrounded") });
  }

  onSources(citations) {
    this.sources = Array.isArray(citations) ? citations : [];
    this.renderCitations(this.sources);
    if (guardReady()) {
      try {
        this.guard = groundwire.newStreamGuard(this.sources.map((c) => String(c.snippet ?? "")));
      } catch (err) {
        this.failClosedNow(err);
      }
    } else {
      this.failClosedNow();
    }
    follow();
  }

  failClosedNow(err) {
    this.failClosed = true;
    if (this.guard) {
      try {
        this.guard.release();
      } catch {
        // ignore
      }
      this.guard = null;
    }
    if (err) console.warn("groundwire: stream guard failed, waiting for the final response:", err);
    this.renderStatus();
  }

  onDelta(delta) {
    if (this.blocked || this.failClosed) return;
    if (!this.guard) {
      // A delta before `sources`: nothing to check it against.
      this.failClosedNow();
      return;
    }
    let r;
    try {
      r = this.guard.feed(String(delta ?? ""));
    } catch (err) {
      this.failClosedNow(err);
      return;
    }
    if (r.safe) this.body.append(r.safe);
    if (!r.ok) this.stopBlocked();
    follow();
  }

  stopBlocked() {
    this.blocked = true;
    this.body.append(this.marker());
    if (this.guard) {
      this.guard.release();
      this.guard = null;
    }
  }

  onStreamEnd(reason) {
    if (reason === "cancelled") {
      // Cancelled without the reader asking: the server is shutting down
      // (its connection closes next), so say the answer was cut short.
      if (this.cancelRequested) {
        // The server took the cancel for the active answer, so it also
        // withdrew the suggestions not confirmed yet (README, Cancel).
        this.cancelled();
        for (const c of suggestions.values()) c.withdrawUnconfirmed();
      } else if (this.superseded) this.cancelled();
      else this.interrupted();
      return;
    }
    if (reason === "blocked") {
      // The server blocked: decide nothing more locally, wait for `response`.
      if (!this.blocked && !this.failClosed) this.stopBlocked();
      return;
    }
    if (this.guard) {
      let r;
      try {
        r = this.guard.close();
      } catch (err) {
        this.guard = null;
        this.failClosedNow(err);
        return;
      }
      this.guard = null;
      if (r.safe) this.body.append(r.safe);
      if (!r.verdict.grounded) {
        this.blocked = true;
        this.body.append(this.marker());
      }
    }
  }

  onResponse(resp) {
    if (this.guard) {
      this.guard.release();
      this.guard = null;
    }
    const citations = Array.isArray(resp.citations) ? resp.citations : this.sources || [];
    this.renderCitations(citations);
    const status = ["verified", "blocked", "no_sources"].includes(resp.status) ? resp.status : "error";
    this.renderFinal(String(resp.text ?? ""), citations, Array.isArray(resp.numbers) ? resp.numbers : [], status);
    let detail = status === "blocked" ? String(resp.error ?? "") : "";
    if (status === "verified" && this.body.querySelector(".num[data-grounded=false]")) {
      // The server said verified but the local check disagrees: fail closed.
      this.setStatus("blocked", detail || t("notGrounded"));
    } else {
      this.setStatus(status, detail);
    }
    this.done();
    els.live.textContent = `${this.body.textContent} — ${this.statusEl.textContent}`;
    follow();
  }

  // renderFinal replaces the streamed text with the final text, each number
  // wrapped in .num[data-grounded] with its citation in the title. The
  // verdict is computed here with the WASM guard when it is loaded; without
  // it, the server's verdict (resp.numbers) is used. Ungrounded numbers are
  // replaced by the marker; unverified ones (small counts in words) are
  // shown marked as not checked; derived ones (one operation over cited
  // numbers) with their formula, in the title and in a line under the
  // answer.
  renderFinal(text, citations, serverNumbers, status) {
    let numbers = serverNumbers;
    let offsets = false;
    if (guardReady()) {
      try {
        numbers = groundwire.verify(text, citations.map((c) => String(c.snippet ?? ""))).numbers;
        offsets = true;
      } catch (err) {
        console.warn("groundwire: verify failed, using the server's verdict:", err);
      }
    }
    // Without the guard's offsets the numbers are found by their text: a
    // format character is shown escaped, and a number that holds one is
    // then not found (fail closed).
    if (!offsets) text = shown(text);
    const spans = locate(text, numbers, offsets);
    const parts = [];
    const formulas = [];
    let at = 0;
    for (const { start, end, n } of spans) {
      if (start < at) continue;
      parts.push(text.slice(at, start));
      if (n.grounded === true) {
        const c = citations[n.citation];
        const cite = c ? shown(`${c.file}:${c.line} — ${c.snippet}`) : "";
        parts.push(el("span", { class: "num", text: text.slice(start, end), dataset: { grounded: "true", state: "grounded", citation: String(n.citation), cite }, title: format(t("groundedBy"), { cite }) }));
      } else if (n.state === "derived" && typeof n.formula === "string" && status !== "blocked") {
        // Computed from cited numbers: shown with its arithmetic.
        const formula = shown(n.formula);
        formulas.push(el("li", { class: "formula", dataset: { citation: String(n.citation) } }, el("bdi", { dir: "ltr", text: formula })));
        parts.push(el("span", { class: "num", text: text.slice(start, end), dataset: { grounded: "derived", state: "derived", citation: String(n.citation), formula }, title: format(t("derived"), { formula }) }));
      } else if (n.state === "unverified" && status !== "blocked") {
        // A small count in words that no source states or contradicts:
        // shown, marked as not checked (the strict policy blocks it).
        parts.push(el("span", { class: "num", text: text.slice(start, end), dataset: { grounded: "unverified", state: "unverified" }, title: t("unverified") }));
      } else {
        parts.push(this.marker());
      }
      at = end;
    }
    parts.push(text.slice(at));
    // Fail closed: with no verdict at all, digits in the text are not shown.
    this.body.replaceChildren(...parts.filter((p) => p !== ""));
    this.body.removeAttribute("aria-busy");
    if (formulas.length > 0) formulas.unshift(el("li", { class: "formulas-label", text: t("computed") }));
    this.formulas.replaceChildren(...formulas);
    this.formulas.hidden = formulas.length === 0;
  }

  renderCitations(citations) {
    const items = citations.map((c, i) =>
      el(
        "li",
        { class: "citation", "data-testid": "citation", dataset: { index: String(i) } },
        el("bdi", { class: "file", dir: "ltr", text: shown(`${c.file ?? ""}${c.line ? `:${c.line}` : ""}`) }),
        el("q", {}, el("bdi", { class: "snippet", dir: "ltr", text: shown(c.snippet) })),
      ),
    );
    this.citations.replaceChildren(...items);
    this.citations.hidden = items.length === 0;
    this.citationsWrap.hidden = items.length === 0;
  }

  cancelled() {
    if (this.guard) {
      this.guard.release();
      this.guard = null;
    }
    this.setStatus("cancelled");
    this.done();
  }

  interrupted() {
    if (this.guard) {
      this.guard.release();
      this.guard = null;
    }
    this.setStatus("interrupted");
    this.done();
  }

  onError(code, message) {
    this.extras.append(el("p", { class: "error", dataset: { code }, text: `${code}: ${message}` }));
    if (this.statusKey === "streaming") {
      if (this.guard) {
        this.guard.release();
        this.guard = null;
      }
      this.setStatus("error", message);
      this.done();
    }
  }

  done() {
    this.body.removeAttribute("aria-busy");
    if (state.active === this.id) {
      // an earlier message the server still answers (the new one was
      // refused) is the one Cancel stops now
      let still = null;
      for (const m of messages.values()) if (m !== this && m.statusKey === "streaming") still = m.id;
      setActive(still);
    }
  }

  addSuggestion(frame) {
    const card = new SuggestionCard(frame);
    suggestions.set(card.sid, card);
    this.extras.append(card.root);
    follow();
  }
}

// locate returns the spans of the numbers in text: from the byte offsets of
// the Go verdict when there are any (converted to UTF-16 indices), else by
// searching each number's text in order.
function locate(text, numbers, offsets) {
  const out = [];
  if (offsets) {
    const idx = byteToIndex(text);
    for (const n of numbers) {
      const start = idx.get(n.start);
      const end = idx.get(n.end);
      if (start !== undefined && end !== undefined) out.push({ start, end, n });
    }
    return out;
  }
  let from = 0;
  for (const n of numbers) {
    const s = typeof n.text === "string" && n.text ? text.indexOf(n.text, from) : -1;
    if (s < 0) continue;
    out.push({ start: s, end: s + n.text.length, n });
    from = s + n.text.length;
  }
  // Without the guard, any numeral (a digit, ④, Ⅻ, ½: Unicode N) the
  // server's verdict does not cover is treated as ungrounded (fail closed).
  const covered = (i) => out.some((o) => i >= o.start && i < o.end);
  const re = /\p{N}+/gu;
  for (const m of text.matchAll(re)) {
    if (!covered(m.index)) out.push({ start: m.index, end: m.index + m[0].length, n: { grounded: false } });
  }
  out.sort((a, b) => a.start - b.start);
  return out;
}

// byteToIndex maps each UTF-8 byte offset that starts a code point (and the
// end of the string) to the UTF-16 index of that code point.
function byteToIndex(text) {
  const m = new Map();
  let b = 0;
  let i = 0;
  for (const ch of text) {
    m.set(b, i);
    const cp = ch.codePointAt(0);
    b += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += ch.length;
  }
  m.set(b, i);
  return m;
}

// ---- action suggestions -------------------------------------------------------

class SuggestionCard {
  constructor(frame) {
    this.sid = String(frame.suggestionId ?? "");
    this.action = String(frame.action ?? "");
    this.payload = frame.payload && typeof frame.payload === "object" ? frame.payload : {};
    this.pending = false;
    this.resolved = false; // a result came: it was confirmed once
    this.withdrawn = false; // its connection closed, or its answer was cancelled: it cannot be confirmed
    this.withdrawnKey = "withdrawn";
    this.title = el("strong", { class: "action" });
    this.kicker = el("span", { class: "kicker" });
    this.details = el("dl", { class: "payload" });
    this.confirmBtn = el("button", { type: "button", class: "confirm", "data-testid": "confirm", onclick: () => this.confirm() });
    this.dismissBtn = el("button", { type: "button", class: "dismiss", "data-testid": "dismiss", onclick: () => this.dismiss() });
    this.results = el("div", { class: "results", "aria-live": "polite" });
    this.root = el(
      "section",
      { class: "suggestion", "data-testid": "suggestion", dataset: { suggestionId: this.sid, action: this.action } },
      this.kicker,
      this.title,
      this.details,
      el("div", { class: "buttons" }, this.confirmBtn, this.dismissBtn),
      this.results,
    );
    this.relabel();
  }

  relabel() {
    this.kicker.textContent = t("suggestion");
    this.title.textContent = t(`actions.${this.action}`) === `actions.${this.action}` ? this.action : t(`actions.${this.action}`);
    const rows = [];
    for (const [k, v] of Object.entries(this.payload)) {
      const label = t(`payload.${k}`);
      rows.push(el("dt", { text: label === `payload.${k}` ? k : label }), el("dd", { text: typeof v === "string" ? v : JSON.stringify(v) }));
    }
    this.details.replaceChildren(...rows);
    this.details.hidden = rows.length === 0;
    this.confirmBtn.textContent = this.pending ? t("confirming") : t("confirm");
    this.dismissBtn.textContent = t("dismiss");
    if (this.withdrawnEl) this.withdrawnEl.textContent = t(this.withdrawnKey);
  }

  confirm() {
    if (this.pending || this.withdrawn) return;
    if (!send({ type: "confirm_action", suggestionId: this.sid })) {
      showError("offline", t("notConnected"));
      return;
    }
    this.pending = true;
    this.confirmBtn.disabled = true;
    this.relabel();
  }

  pendingDone() {
    this.pending = false;
    this.confirmBtn.disabled = this.withdrawn;
    this.relabel();
  }

  // withdraw disables the card for good: its connection closed (key
  // "withdrawn"), or the reader cancelled ("withdrawnCancel").
  withdraw(key = "withdrawn") {
    if (this.withdrawn) return;
    this.withdrawn = true;
    this.withdrawnKey = key;
    this.root.dataset.withdrawn = "true";
    this.withdrawnEl = el("p", { class: "withdrawn", "data-testid": "withdrawn" });
    this.results.append(this.withdrawnEl);
    this.pendingDone();
  }

  // withdrawUnconfirmed withdraws the card when a cancel did server side:
  // never confirmed, and no confirm under way.
  withdrawUnconfirmed() {
    if (!this.resolved && !this.pending) this.withdraw("withdrawnCancel");
  }

  // onResult shows a result. Confirm stays available afterwards: a repeated
  // confirm is safe (the server answers "Already executed").
  onResult(result) {
    const r = result && typeof result === "object" ? result : {};
    this.results.append(
      el("p", {
        class: "action-result",
        "data-testid": "action-result",
        dataset: { success: String(r.success === true), ignored: String(r.ignored === true) },
        text: String(r.message ?? ""),
      }),
    );
    this.resolved = true;
    this.pendingDone();
    follow();
  }

  dismiss() {
    suggestions.delete(this.sid);
    this.root.remove();
  }
}

// ---- frames -----------------------------------------------------------------

function handleFrame(f) {
  if (!f || typeof f !== "object") return;
  const m = typeof f.id === "string" ? messages.get(f.id) : undefined;
  switch (f.type) {
    case "sources":
      if (m && m.statusKey === "streaming") m.onSources(f.citations);
      break;
    case "stream":
      if (m && m.statusKey === "streaming") m.onDelta(f.delta);
      break;
    case "stream_end":
      if (m && m.statusKey === "streaming") m.onStreamEnd(f.reason);
      break;
    case "response":
      if (m && m.statusKey === "streaming") m.onResponse(f);
      break;
    case "action_suggestion":
      if (m) m.addSuggestion(f);
      break;
    case "action_executed": {
      const s = suggestions.get(String(f.suggestionId ?? ""));
      if (s) s.onResult(f.result);
      break;
    }
    case "error":
      if (m) m.onError(String(f.code ?? "error"), String(f.message ?? ""));
      else showError(String(f.code ?? "error"), String(f.message ?? ""));
      break;
    default:
      // Unknown frame types are ignored (forward compatible).
      break;
  }
}

// ---- wiring -------------------------------------------------------------------

els.composer.addEventListener("submit", (e) => {
  e.preventDefault();
  submit();
});
els.input.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});
els.cancel.addEventListener("click", cancelActive);
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && state.active) {
    e.preventDefault();
    cancelActive();
  }
});
for (const b of document.querySelectorAll("#lang button")) b.addEventListener("click", () => setLang(b.dataset.lang));

applyLang();
connect();
