"""The table page: one HTML document with its CSS and plain JavaScript inline.

Nothing is fetched from elsewhere (the server's Content-Security-Policy forbids it);
the card faces are the SVG of :mod:`p2p_sasaki.cli.web.cards`, embedded once. The
script opens the WebSocket next to the page, draws every ``table`` message it gets
(all text through ``textContent``, so names are never markup) and sends answers.
"""

from __future__ import annotations

import functools
import json

from p2p_sasaki.cli.games.sasaki import RULES_HELP
from p2p_sasaki.cli.web.cards import back, faces

__all__ = ["page"]

_CSS = """
:root { --felt:#1f5e3b; --felt-dark:#174a2e; --ink:#f3efe2; --gold:#f2c14e; --red:#c8102e; --panel:#143d27; }
* { box-sizing: border-box; }
[hidden] { display:none !important; }
html, body { margin:0; padding:0; }
body { font: 16px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--ink);
       background: linear-gradient(180deg, #256f46 0%, var(--felt) 40%, var(--felt-dark) 100%);
       min-height:100vh; }
header { display:flex; flex-wrap:wrap; gap:.4rem 1rem; align-items:baseline; padding:.6rem 1rem;
         background:rgba(0,0,0,.25); }
header h1 { font-size:1.2rem; margin:0; letter-spacing:.04em; }
header .meta { opacity:.85; }
#status { flex:1 1 12rem; text-align:right; color:var(--gold); min-height:1.4em; font-weight:600; }
#side { flex-basis:100%; font-size:.9rem; opacity:.9; }
#side:empty { display:none; }
kbd { font:inherit; font-size:.75em; font-weight:700; padding:0 .3em; margin-left:.35em; border-radius:.25em;
      border:1px solid currentColor; opacity:.75; }
#result { position:fixed; inset:auto 0 0 0; margin:0 auto; max-width:44rem; z-index:10; background:#0f2f1d;
          border:2px solid var(--gold); border-radius:.9rem .9rem 0 0; padding:.8rem 1rem;
            box-shadow:0 -.4rem 1.4rem rgba(0,0,0,.5);
          max-height:80vh; overflow-y:auto; }
#result h2 { margin:0 0 .3rem; font-size:1.1rem; }
#result table { width:100%; border-collapse:collapse; font-size:.9rem; }
#result th, #result td { text-align:left; padding:.2rem .35rem; vertical-align:top;
  border-bottom:1px solid rgba(255,255,255,.12); }
#result td.score { text-align:right; font-variant-numeric: tabular-nums; font-weight:700; }
#result .red { color:#ff8a8a; } #result .why { font-size:.82rem; opacity:.9; }
main { display:grid; grid-template-columns: minmax(0,1fr) 18rem; gap:1rem; padding:1rem; max-width:1280px;
       margin:0 auto; }
@media (max-width: 900px) { main { grid-template-columns: minmax(0,1fr); padding:.5rem; } #status { text-align:left; } }
.table { display:grid; grid-template-areas: ". top ." "left centre right" "you you you";
         grid-template-columns: minmax(0,1fr) minmax(0,2fr) minmax(0,1fr); gap:.6rem; }
.seat { background:rgba(0,0,0,.22); border:2px solid transparent; border-radius:.8rem; padding:.5rem .7rem;
        min-width:0; }
.seat.awaited { border-color: var(--gold); box-shadow:0 0 .6rem rgba(242,193,78,.5); }
.seat h2 { font-size:1rem; margin:0 0 .2rem; overflow-wrap:anywhere; }
.seat .line { font-size:.9rem; opacity:.9; }
.seat .badges span { display:inline-block; font-size:.78rem; padding:.05rem .45rem; margin:.15rem .2rem 0 0;
                     border-radius:1rem; background:rgba(255,255,255,.15); }
.seat .badges .out { background:var(--gold); color:#222; }
.seat .badges .tens { background:#fff; color:var(--red); font-weight:700; }
.backs { display:flex; margin-top:.3rem; height:2.6rem; overflow:hidden; max-width:100%; }
.backs svg { width:1.9rem; height:2.6rem; margin-right:-1.25rem; filter: drop-shadow(0 1px 1px rgba(0,0,0,.4)); }
#seat-top { grid-area:top; } #seat-left { grid-area:left; } #seat-right { grid-area:right; }
#centre { grid-area:centre; display:flex; flex-direction:column; align-items:center; justify-content:center;
          min-height:9.5rem; background:rgba(0,0,0,.12); border-radius:50%/35%; padding:.6rem; text-align:center; }
#centre .cards { display:flex; flex-wrap:wrap; justify-content:center; gap:.25rem; }
#centre svg { width:3.4rem; height:auto; filter: drop-shadow(0 2px 2px rgba(0,0,0,.45)); }
#you { grid-area:you; background:rgba(0,0,0,.28); border-radius:.9rem; padding:.7rem; min-width:0; }
#you.asked { box-shadow: 0 0 0 2px var(--gold), 0 0 .8rem rgba(242,193,78,.45); }
#question { font-weight:600; margin:.1rem 0 .5rem; min-height:1.4em; }
#countdown { color:var(--gold); font-variant-numeric: tabular-nums; margin-left:.4rem; }
#reason { color:#ffd7d7; background:rgba(200,16,46,.35); border-radius:.4rem; padding:.2rem .5rem; margin:.3rem 0; }
#reason:empty { display:none; }
.hand { display:flex; flex-wrap:wrap; gap:.9rem .5rem; margin:1rem 0 .6rem; }
#mine { margin-top:.5rem; font-size:.9rem; opacity:.9; }
#mine span { display:inline-block; font-size:.78rem; padding:.05rem .45rem; margin-left:.3rem; border-radius:1rem;
             background:rgba(255,255,255,.15); }
#mine .out { background:var(--gold); color:#222; }
.group { display:flex; }
.card { appearance:none; border:0; background:none; padding:0; margin:0 -1.1rem 0 0; cursor:pointer;
        transition: transform .12s; border-radius:.45rem; position:relative; }
.group .card:last-child { margin-right:0; }
.card svg { width:4.2rem; height:auto; display:block; filter: drop-shadow(0 2px 2px rgba(0,0,0,.45)); }
.card.dim svg { filter: brightness(.72) drop-shadow(0 2px 2px rgba(0,0,0,.45)); }
.card.playable svg { filter: drop-shadow(0 0 .25rem rgba(242,193,78,.9)); }
.card[aria-pressed="true"] { transform: translateY(-.8rem); }
.card[aria-pressed="true"] svg { outline:3px solid var(--gold); border-radius:.45rem; }
.card:focus-visible { outline:3px solid #9fd3ff; outline-offset:2px; }
@media (max-width: 520px) { .card svg { width:3.3rem; } .card { margin-right:-.9rem; } #centre svg { width:2.8rem; } }
.actions { display:flex; flex-wrap:wrap; gap:.5rem; }
button.act { font:inherit; font-weight:600; padding:.55rem 1.1rem; border-radius:.6rem; border:0; cursor:pointer;
             background:#e9e4d4; color:#1b1b1f; min-width:5.5rem; }
button.act.primary { background:var(--gold); }
button.act.claim { background:#ff8f5a; }
button.act:disabled { opacity:.45; cursor:not-allowed; }
button.act:focus-visible, .chip:focus-visible { outline:3px solid #9fd3ff; outline-offset:2px; }
.legal { margin-top:.6rem; display:flex; flex-wrap:wrap; gap:.35rem; align-items:center; }
.legal .kind { display:flex; flex-wrap:wrap; gap:.35rem; align-items:center; margin-right:.6rem; }
.legal .title { font-size:.85rem; opacity:.8; margin-right:.2rem; }
.chip { font:inherit; font-size:.85rem; padding:.2rem .6rem; border-radius:1rem; border:1px solid rgba(255,255,255,.4);
        background:rgba(255,255,255,.08); color:var(--ink); cursor:pointer; }
aside { display:flex; flex-direction:column; gap:1rem; min-width:0; }
aside section { background:var(--panel); border-radius:.8rem; padding:.6rem .8rem; }
aside h2 { font-size:1rem; margin:0 0 .4rem; }
#log { list-style:none; margin:0; padding:0; max-height:16rem; overflow-y:auto; font-size:.88rem; }
#log li { padding:.1rem 0; border-bottom:1px solid rgba(255,255,255,.07); overflow-wrap:anywhere; }
#log li.score { color:var(--gold); } #log li.alert { color:#ffb3b3; font-weight:700; } #log li.out { font-weight:700; }
table.scores { width:100%; border-collapse:collapse; font-size:.9rem; font-variant-numeric: tabular-nums; }
table.scores th, table.scores td { padding:.15rem .3rem; text-align:right; }
table.scores th:first-child, table.scores td:first-child { text-align:left; }
table.scores .you { color:var(--gold); }
table.scores tfoot td { border-top:1px solid rgba(255,255,255,.4); font-weight:700; }
progress { width:100%; height:.7rem; accent-color: var(--gold); }
#verdict { font-weight:600; }
#help-text { white-space:pre-wrap; font-size:.85rem; }
.sr-only { position:absolute; width:1px; height:1px; padding:0; margin:-1px; overflow:hidden; clip:rect(0,0,0,0);
           border:0; }
"""

_BODY = """
<header>
  <h1>Sasaki</h1><span class="meta" id="meta">connecting ...</span>
  <span id="status" role="status" aria-live="polite"></span>
  <span id="side"></span>
</header>
<main>
  <div>
    <div class="table" aria-label="The table">
      <section class="seat" id="seat-top" aria-live="off"></section>
      <section class="seat" id="seat-left"></section>
      <section id="centre" aria-label="Top play"><div id="top-label">No top play yet.</div><div class="cards"
        id="top-cards"></div></section>
      <section class="seat" id="seat-right"></section>
      <section id="you" aria-label="Your seat">
        <div id="question" aria-live="polite"></div>
        <div id="progress-box" hidden><label for="progress" id="progress-label">Dealing</label>
          <progress id="progress" max="1" value="0"></progress></div>
        <div id="reason" role="alert"></div>
        <div class="hand" id="hand" aria-label="Your hand"></div>
        <div class="actions" id="actions">
          <button class="act primary" id="play" type="button"
            aria-label="Play" aria-keyshortcuts="P">Play<kbd>P</kbd></button>
          <button class="act" id="pass" type="button" aria-label="Pass" aria-keyshortcuts=".">Pass<kbd>.</kbd></button>
          <button class="act" id="clear" type="button"
            aria-label="Clear" aria-keyshortcuts="Escape">Clear<kbd>Esc</kbd></button>
        </div>
        <div class="actions" id="claims"></div>
        <div class="legal" id="legal" aria-label="Legal plays"></div>
        <div id="mine"></div>
      </section>
    </div>
  </div>
  <aside>
    <section id="end" hidden aria-label="Result">
      <h2>Result</h2><p id="verdict"></p>
      <p id="next-question" hidden></p>
      <div class="actions"><button class="act primary" id="next" type="button" hidden>Next match</button>
      <button class="act" id="download" type="button">Download transcript</button>
      <button class="act" id="leave" type="button"
        title="Ends your table: no next match">Close table (no next match)</button></div>
    </section>
    <section aria-label="Scores"><h2>Scores</h2><table class="scores" id="scores"></table></section>
    <section aria-label="Play by play"><h2>Play by play</h2><ul id="log"></ul></section>
    <section><button class="act" id="help" type="button" aria-expanded="false">Help</button>
      <div id="help-text" hidden></div></section>
  </aside>
</main>
<div id="result" role="dialog" aria-labelledby="result-title" hidden>
  <h2 id="result-title">Hand result</h2>
  <p id="result-why"></p>
  <table><thead><tr><th scope="col">Place</th><th scope="col">Player</th><th scope="col">Side</th>
    <th scope="col">Score</th><th scope="col">Why</th></tr></thead><tbody id="result-rows"></tbody></table>
  <p id="result-totals"></p>
  <div class="actions"><button class="act primary" id="result-close" type="button"
    aria-label="Close" aria-keyshortcuts="Enter">Close<kbd>Enter</kbd></button></div>
</div>
"""

_SCRIPT = r"""
"use strict";
const FACES = JSON.parse(document.getElementById("faces").textContent);
const BACK = JSON.parse(document.getElementById("back").textContent);
const HELP = JSON.parse(document.getElementById("help-json").textContent);
const RANKS = {"3":"three","4":"four","5":"five","6":"six","7":"seven","8":"eight","9":"nine","T":"ten",
               "J":"jack","Q":"queen","K":"king","A":"ace"};
const SUITS = {"C":"clubs","D":"diamonds","H":"hearts","S":"spades"};
const PLACES = ["1st","2nd","3rd","4th"];
// A window's claim and its key (shown on the button); several claims are numbered 1, 2, ...
const CLAIMS = {run:["Run","R"], stop:["Stop","S"], chata:["Chata","C"], kkojda:["Kkojda","K"], expose:["Show","W"]};
const words = c => RANKS[c[0]] + " of " + SUITS[c[1]];
const $ = id => document.getElementById(id);
let table = null, socket = null, selected = new Set(), countdownEnd = null, promptId = null, nextEnd = null;
let keys = {};            // key -> button, for the open window (and the result dialog)
let dismissed = null;     // the hand whose result dialog the person closed
let closed = false;       // "Close table" pressed: the page stops reconnecting
let failures = 0;

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function svg(markup) {
  const t = document.createElement("template"); t.innerHTML = markup; return t.content.firstChild; }
function button(label, key, cls, onclick) {
  const b = el("button", {"type":"button", "class": cls, "aria-label": label}, label);
  if (key) { b.setAttribute("aria-keyshortcuts", key); b.append(el("kbd", {}, key)); }
  b.addEventListener("click", onclick);
  return b;
}

function connect() {
  socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") +
    location.host + location.pathname + "ws");
  socket.onopen = () => { failures = 0; };
  socket.onmessage = ev => {
    const m = JSON.parse(ev.data);
    if (m.type === "table") { table = m.table; draw(); }
    else if (m.type === "refused") { $("reason").textContent = "Not played: " + m.reason + "."; }
  };
  socket.onclose = () => {
    if (closed) { $("status").textContent = "Table closed (no next match); you can close this tab."; return; }
    if (table && table.verdict !== null && table.next_match === null) {
      $("status").textContent = "The table has ended (the sasaki program finished); you can close this tab."; return; }
    failures += 1;
    if (failures > 30) {
      $("status").textContent = "No connection to your sasaki program: is it still running? Reload to try again.";
      return; }
    $("status").textContent = "Connection to your peer lost; retrying ..."; setTimeout(connect, 1000);
  };
}
function send(m) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(m)); }
function answer(extra) {
  if (table && table.prompt) {
    $("reason").textContent = ""; send(Object.assign({type:"answer", prompt: table.prompt.id}, extra)); } }

function seatBox(box, seat, where) {
  box.replaceChildren();
  if (!seat) { box.hidden = true; return; }
  box.hidden = false;
  box.classList.toggle("awaited", seat.awaited);
  box.setAttribute("aria-label", seat.label + ", " + where);
  box.append(el("h2", {}, seat.you ? seat.label + " (S" + seat.seat + ")" : seat.label));
  box.append(el("div", {"class":"line"}, seat.cards_left + (seat.cards_left === 1 ? " card" : " cards")));
  if (seat.open_cards.length) {
    // a bot in an empty seat: its hand is open to all, so it is drawn face up
    box.append(el("div", {"class":"line open"}, "Bot's hand, open to all"));
    const faces = el("div", {"class":"backs open", "role":"img",
                             "aria-label": "Bot's hand, open to all: " + seat.open_cards.join(" ")});
    for (const c of seat.open_cards) faces.append(svg(FACES[c]));
    box.append(faces);
  } else {
    const backs = el("div", {"class":"backs", "aria-hidden":"true"});
    for (let i = 0; i < Math.min(seat.cards_left, 12); i++) backs.append(svg(BACK));
    box.append(backs);
  }
  const badges = el("div", {"class":"badges"});
  if (seat.place) badges.append(el("span", {"class":"out"}, "out " + PLACES[seat.place - 1]));
  if (seat.passed) badges.append(el("span", {}, "passed"));
  if (seat.red_tens.length) badges.append(el("span", {"class":"tens"}, "shows " + seat.red_tens.join(" ")));
  if (seat.offline) badges.append(el("span", {}, "no connection"));
  if (seat.awaited) badges.append(el("span", {}, "thinking ..."));
  box.append(badges);
}

function legalVariants() {
  const p = table && table.prompt;
  if (!p || p.kind !== "turn") return [];
  const out = [];
  for (const g of p.groups) for (const c of g.choices) for (const v of c.variants) out.push({choice: c, cards: v});
  return out;
}

// The hand: one button per card, kept from update to update while the hand is the same (so
// focus stays where it is), named with its state ("TH, playable"). When cards leave the hand,
// the focus goes to the same card, or to the next one.
function drawHand(t, p) {
  const turn = p && p.kind === "turn";
  const playable = new Set(turn ? p.playable : []);
  const hand = $("hand");
  const shape = JSON.stringify(t.hand);
  if (hand.dataset.shape !== shape) {
    const active = document.activeElement;
    const was = active && active.dataset && active.dataset.card ? active.dataset.card : null;
    const order = [...hand.querySelectorAll(".card")].map(b => b.dataset.card);
    hand.dataset.shape = shape;
    const groups = [];
    for (const group of t.hand) {
      const g = el("div", {"class":"group"});
      for (const c of group) {
        const b = el("button", {"type":"button", "class":"card", "title": words(c), "data-card": c});
        b.append(svg(FACES[c]));
        b.addEventListener("click", () => {
          selected.has(c) ? selected.delete(c) : selected.add(c); $("reason").textContent = ""; markSelection(); });
        g.append(b);
      }
      groups.push(g);
    }
    hand.replaceChildren(...groups);
    if (was !== null) {
      const held = t.hand.flat();
      const next = held.includes(was) ? was : order.slice(order.indexOf(was)).find(c => held.includes(c))
        || held[held.length - 1];
      const b = next && hand.querySelector('[data-card="' + next + '"]');
      if (b) b.focus({preventScroll: true});
    }
  }
  for (const b of hand.querySelectorAll(".card")) {
    const c = b.dataset.card;
    const state = turn ? (playable.has(c) ? "playable" : "not playable") : "";
    b.setAttribute("aria-label", state ? c + ", " + state : c);
    b.classList.toggle("playable", !!turn && playable.has(c));
    b.classList.toggle("dim", !!turn && !playable.has(c));
  }
}

function restoreFocus() {
  const a = document.activeElement;
  if (a && a !== document.body && document.contains(a) && a.offsetParent !== null) return;
  // Focus fell to the page (its element was removed or hidden): the first playable card,
  // else the first card, else the first visible button.
  const target = document.querySelector("#hand .card.playable") || document.querySelector("#hand .card")
    || [...document.querySelectorAll("button")].find(b => b.offsetParent !== null && !b.disabled);
  if (target) target.focus({preventScroll: true});
}

function draw() {
  const t = table;
  const p = t.prompt;
  const newPrompt = (p ? p.id : null) !== promptId;
  if (newPrompt) { promptId = p ? p.id : null; selected.clear(); $("reason").textContent = ""; }
  $("you").dataset.prompt = p ? String(p.id) : "";
  $("you").dataset.kind = p ? p.kind : "";
  $("you").classList.toggle("asked", !!p);
  $("meta").textContent = (t.match_no > 1 ? "Match " + t.match_no + " \u00b7 " : "")
    + (t.hand_no ? "Hand " + t.hand_no + (t.hands ? " of " + t.hands : "") : "Waiting room")
    + " \u00b7 multiplier x" + t.multiplier + (t.you !== null ? " \u00b7 you are " + t.you_label : "");
  if (!closed) $("status").textContent = t.status;
  $("side").textContent = t.side ? t.side + "." : "";
  const seats = t.seats || [];
  const you = t.you;
  const at = k => (you === null || !seats.length) ? null : seats[(you + k) % 4];
  // The next seat in the order of play: on your right when play goes counter-clockwise (Sasaki),
  // on your left when it goes clockwise.
  const ccw = t.direction === "counter-clockwise";
  seatBox($(ccw ? "seat-right" : "seat-left"), at(1), "next after you");
  seatBox($("seat-top"), at(2), "opposite you");
  seatBox($(ccw ? "seat-left" : "seat-right"), at(3), "plays before you");
  // The top play.
  const top = t.top;
  $("top-label").textContent = top ? top.label + " played " + top.combo :
    (t.phase === "playing" ? "No top play: a new round." : "");
  const topCards = $("top-cards"); topCards.replaceChildren();
  if (top) for (const c of top.cards) {
    const f = el("span", {"role":"img", "aria-label": c + ", " + words(c)}); f.append(svg(FACES[c]));
    topCards.append(f); }
  // Progress of the deal.
  const prog = t.progress;
  $("progress-box").hidden = !(prog && t.phase === "dealing");
  if (prog) { $("progress-label").textContent = "Deal: " + prog.step + " " + prog.done + "/" + prog.total;
              $("progress").max = Math.max(prog.total, 1); $("progress").value = prog.done; }
  // The question and countdown.
  const q = $("question"); q.replaceChildren();
  if (p) { q.append(document.createTextNode(p.question));
           if (p.seconds_left !== null) {
             countdownEnd = Date.now() + p.seconds_left * 1000;
             q.append(el("span", {"id":"countdown", "aria-live":"off"})); tick(); }
           else countdownEnd = null; }
  else { countdownEnd = null; q.textContent = t.result || (t.phase === "dealing" ? "Shuffling and dealing ..." : ""); }
  drawHand(t, p);
  // Buttons.
  const turn = p && p.kind === "turn";
  $("actions").hidden = !turn;
  $("pass").disabled = !(turn && p.can_pass);
  const claims = $("claims");
  if (newPrompt) {   // a window's buttons: made once per prompt, so a focused one stays focused
    claims.replaceChildren(); keys = {};
    if (p && !turn) {
      const [name, key] = CLAIMS[p.kind] || ["Claim", "Y"];
      const all = p.groups.flatMap(g => g.choices);
      all.forEach((c, i) => {
        const label = p.kind === "stall" ? c.label : (all.length > 1 ? name + " " + c.variants[0].join(" ") : name);
        const k = p.kind === "stall" ? String(i + 1) : (all.length > 1 ? String(i + 1) : key);
        const b = button(label, k, "act claim", () => answer({key: c.key}));
        b.title = c.label; keys[k.toLowerCase()] = b; claims.append(b);
      });
      if (p.can_decline) {
        const d = button("Decline", "N", "act", () => answer({key:"decline"})); keys["n"] = d; claims.append(d); }
    }
  }
  const legal = $("legal");
  if (newPrompt) {
    legal.replaceChildren();
    if (turn) for (const g of p.groups) {
      const kind = el("div", {"class":"kind"});
      kind.append(el("span", {"class":"title"}, g.title + ":"));
      for (const c of g.choices) {
        const label = c.variants.length > 1 ? c.label + " (" + c.variants.length + " ways)" : c.label;
        const b = el("button", {"type":"button", "class":"chip", "aria-label": "Select " + label}, label);
        b.addEventListener("click", () => { selected = new Set(c.variants[0]); markSelection(); });
        kind.append(b);
      }
      legal.append(kind);
    }
  }
  markSelection();
  // Your own seat.
  const mine = $("mine"); mine.replaceChildren();
  const me = you !== null && seats.length ? seats[you] : null;
  if (me) {
    mine.append(document.createTextNode("You (S" + me.seat + "): " + me.cards_left +
      (me.cards_left === 1 ? " card" : " cards")));
    if (me.place) mine.append(el("span", {"class":"out"}, "out " + PLACES[me.place - 1]));
    if (me.passed) mine.append(el("span", {}, "passed"));
    if (me.red_tens.length) mine.append(el("span", {}, "shows " + me.red_tens.join(" ")));
  }
  drawScores(t, seats, you);
  // The log.
  const log = $("log"); log.replaceChildren();
  for (const n of t.log.filter(n => n.kind !== "wait" && n.kind !== "progress").slice(-30))
    log.append(el("li", {"class": n.kind}, n.text));
  log.scrollTop = log.scrollHeight;
  // The end.
  $("end").hidden = t.verdict === null;
  $("verdict").textContent = t.verdict || "";
  $("download").disabled = !t.transcript;
  // The next match with the same four: asked until you answer, then the others are awaited.
  const n = t.next_match;
  $("next").hidden = !(n && n.answer === null);
  $("next-question").hidden = !n;
  if (n && n.answer === null) {
    $("next-question").textContent = n.question + " ";
    if (n.seconds_left !== null) { nextEnd = Date.now() + n.seconds_left * 1000;
      $("next-question").append(el("span", {"id":"next-countdown", "aria-live":"off"})); tick(); }
  } else if (n) {
    nextEnd = null; $("next-question").textContent = n.answer ? "Waiting for the others to answer ..." : ""; }
  const shown = drawResult(t);
  // Focus: a window's first button when it opens, the result dialog's Close when it appears;
  // otherwise it stays where it was, and never falls to the page.
  if (newPrompt && p && !turn && claims.firstChild) claims.firstChild.focus({preventScroll: true});
  else if (newPrompt && turn && !$("you").contains(document.activeElement)) {
    const first = document.querySelector("#hand .card.playable") || document.querySelector("#hand .card");
    if (first) first.focus({preventScroll: true});   // your turn: to your cards
  }
  else if (shown) $("result-close").focus({preventScroll: true});
  else restoreFocus();
  document.dispatchEvent(new Event("table-drawn"));   // for tests: an update is drawn
}

function drawScores(t, seats, you) {
  const sc = $("scores"); sc.replaceChildren();
  if (!seats.length) return;
  const head = el("tr"); head.append(el("th", {"scope":"col"}, "Hand"));
  for (const s of seats) head.append(el("th", {"scope":"col", "class": s.you ? "you" : ""}, s.you ? "You" : s.label));
  const thead = el("thead"); thead.append(head); sc.append(thead);
  const body = el("tbody");
  for (const [no, scores] of t.scores.rows) { const r = el("tr"); r.append(el("td", {}, String(no)));
    scores.forEach((v, i) => r.append(el("td", {"class": i === you ? "you" : ""}, (v > 0 ? "+" : "") + v)));
      body.append(r); }
  sc.append(body);
  const foot = el("tfoot"); const r = el("tr"); r.append(el("td", {}, t.scores.final ? "Final" : "Total"));
  t.scores.totals.forEach((v, i) => r.append(el("td", {"class": i === you ? "you" : ""},
    (v > 0 ? "+" : "") + v + (t.scores.final && t.scores.winners.includes(i) ? " \u2605" : ""))));
  foot.append(r); sc.append(foot);
}

// The hand's result: shown until closed or the next deal's cards arrive. Returns true when it
// has just appeared.
function drawResult(t) {
  const r = t.hand_result;
  const box = $("result");
  const show = !!r && dismissed !== (t.match_no + ":" + r.hand_no);
  const appeared = show && (box.hidden || box.dataset.hand !== t.match_no + ":" + r.hand_no);
  box.hidden = !show;
  if (!show) { box.dataset.hand = ""; return false; }
  if (!appeared) return false;
  box.dataset.hand = t.match_no + ":" + r.hand_no;
  $("result-title").textContent = "Hand " + r.hand_no + " result";
  $("result-why").textContent = "Multiplier x" + r.multiplier + " (" + r.why_multiplier + ").";
  const rows = $("result-rows"); rows.replaceChildren();
  for (const row of r.rows) {
    const tr = el("tr");
    tr.append(el("td", {}, PLACES[row.place - 1]), el("td", {}, row.label), el("td", {"class": row.side}, row.side),
              el("td", {"class":"score"}, (row.score > 0 ? "+" : "") + row.score));
    const why = el("td", {"class":"why"}, row.reason);
    if (row.remaining.length) why.append(el("div", {}, "Still held: " + row.remaining.join(" ")));
    tr.append(why);
    rows.append(tr);
  }
  $("result-totals").textContent = "Match totals: " + r.totals_text + ".";
  return true;
}

function markSelection() {
  const sel = [...selected].sort().join(" ");
  for (const b of document.querySelectorAll("#hand .card"))
    b.setAttribute("aria-pressed", selected.has(b.dataset.card) ? "true" : "false");
  const match = legalVariants().find(v => [...v.cards].sort().join(" ") === sel);
  const p = table && table.prompt;
  $("play").disabled = !(p && p.kind === "turn" && selected.size);
  $("play").title = match ? "Play " + match.choice.label : "";
}

function tick() {
  const c = $("countdown");
  if (!c || countdownEnd === null) return;
  const left = Math.max(0, Math.ceil((countdownEnd - Date.now()) / 1000));
  c.textContent = " " + left + " s left";
}
function tickNext() {
  const c = $("next-countdown");
  if (c && nextEnd !== null) c.textContent = "(" + Math.max(0, Math.ceil((nextEnd - Date.now()) / 1000)) + " s left)";
}
setInterval(() => { tick(); tickNext(); }, 250);

function closeResult() {
  const r = table && table.hand_result;
  if (r) dismissed = table.match_no + ":" + r.hand_no;
  $("result").hidden = true;
  restoreFocus();
}
$("play").addEventListener("click", () => { if (selected.size) answer({cards: [...selected].join(" ")}); });
$("pass").addEventListener("click", () => answer({key:"pass"}));
$("clear").addEventListener("click", () => { selected.clear(); markSelection(); });
$("result-close").addEventListener("click", closeResult);
$("download").addEventListener("click", () => { location.href = location.pathname + "transcript"; });
$("next").addEventListener("click", () => {
  if (table && table.next_match) send({type:"next-match", offer: table.next_match.id, accept: true}); });
$("leave").addEventListener("click", () => { closed = true; send({type:"leave"});
  $("status").textContent = "Table closed (no next match); you can close this tab."; });
$("help").addEventListener("click", () => {
  const h = $("help-text"); h.hidden = !h.hidden; $("help").setAttribute("aria-expanded", String(!h.hidden)); });
$("help-text").textContent = HELP;
document.addEventListener("keydown", ev => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const key = ev.key.toLowerCase();
  if (!$("result").hidden && (ev.key === "Escape" || ev.key === "Enter")) {
    ev.preventDefault(); closeResult(); return; }
  const p = table && table.prompt;
  if (p && p.kind !== "turn" && keys[key]) { ev.preventDefault(); keys[key].click(); return; }
  if (key === "p" && selected.size) { ev.preventDefault(); answer({cards: [...selected].join(" ")}); }
  else if (ev.key === "Escape") { selected.clear(); markSelection(); }
  else if (ev.key === "." && p && p.can_pass) answer({key:"pass"});
});
connect();
"""


@functools.cache
def page() -> str:
    """The whole page (the same for every token: the token is in the address only)."""
    def data(name: str, value: object) -> str:
        text = json.dumps(value).replace("</", "<\\/")
        return f'<script type="application/json" id="{name}">{text}</script>'

    help_text = RULES_HELP + "\n\nKeys: Tab to a card, Space or Enter picks it; P plays the picked cards; " \
        "'.' passes; Escape clears. A button under the table picks each legal play's cards. In a window, " \
        "the key on each button answers (C chata, K kkojda, R run, S Stop, W show, N decline); Enter or " \
        "Escape closes a hand's result. Play goes counter-clockwise: the next player sits on your right."
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>Sasaki table</title><style>" + _CSS + "</style></head><body>" + _BODY
            + data("faces", faces()) + data("back", back()) + data("help-json", help_text)
            + "<script>" + _SCRIPT + "</script></body></html>")
