"""The replay page of ``sasaki view``: one HTML document, the steps embedded as JSON.

Nothing is fetched (the server's Content-Security-Policy forbids it) and no WebSocket is
needed: the replay is known before the page is served. Every seat's cards are drawn face
up with :mod:`p2p_sasaki.cli.web.cards`; ``Previous`` / ``Next`` (or the arrow keys,
Home and End) step; the status line says what the step did.
"""

from __future__ import annotations

import json
from typing import Any

from p2p_sasaki.cli.web.cards import faces

__all__ = ["replay_page"]

_CSS = """
:root { --felt:#1f5e3b; --ink:#f3efe2; --gold:#f2c14e; }
* { box-sizing:border-box; }
[hidden] { display:none !important; }
body { margin:0; font:16px/1.4 system-ui, sans-serif; color:var(--ink);
       background:linear-gradient(180deg, #256f46 0%, var(--felt) 40%, #174a2e 100%); min-height:100vh; }
header { display:flex; flex-wrap:wrap; gap:.4rem 1rem; align-items:baseline; padding:.6rem 1rem;
  background:rgba(0,0,0,.25); }
header h1 { font-size:1.2rem; margin:0; }
#where { opacity:.85; }
#step-text { flex-basis:100%; color:var(--gold); font-weight:600; min-height:1.4em; }
main { max-width:1200px; margin:0 auto; padding:1rem; display:grid; gap:1rem;
       grid-template-columns:minmax(0,1fr) 18rem; }
@media (max-width:900px) { main { grid-template-columns:minmax(0,1fr); padding:.5rem; } }
.table { display:grid; gap:.6rem; grid-template-areas:". top ." "left centre right" ". bottom .";
         grid-template-columns:minmax(0,1fr) minmax(0,1.3fr) minmax(0,1fr); }
.seat { background:rgba(0,0,0,.22); border:2px solid transparent; border-radius:.8rem; padding:.5rem; min-width:0; }
.seat.next { border-color:var(--gold); }
.seat h2 { font-size:.95rem; margin:0 0 .3rem; overflow-wrap:anywhere; }
.seat .out { font-size:.78rem; background:var(--gold); color:#222; border-radius:1rem;
  padding:0 .4rem; margin-left:.3rem; }
.cards { display:flex; flex-wrap:wrap; gap:.15rem; }
.cards svg { width:2.2rem; height:auto; }
#centre { grid-area:centre; display:flex; flex-direction:column; align-items:center; justify-content:center;
          text-align:center; background:rgba(0,0,0,.12); border-radius:50%/35%; min-height:8rem; padding:.5rem; }
#centre svg { width:3rem; }
#seat-0 { grid-area:bottom; } #seat-1 { grid-area:right; } #seat-2 { grid-area:top; } #seat-3 { grid-area:left; }
.controls { display:flex; gap:.5rem; flex-wrap:wrap; margin-top:.8rem; align-items:center; }
button { font:inherit; font-weight:600; padding:.5rem 1rem; border-radius:.6rem; border:0; background:#e9e4d4;
         color:#1b1b1f; cursor:pointer; }
button:disabled { opacity:.45; cursor:not-allowed; }
button:focus-visible { outline:3px solid #9fd3ff; outline-offset:2px; }
kbd { font:inherit; font-size:.75em; border:1px solid currentColor; border-radius:.25em;
  padding:0 .3em; margin-left:.35em; }
aside section { background:#143d27; border-radius:.8rem; padding:.6rem .8rem; }
aside h2 { font-size:1rem; margin:0 0 .4rem; }
#log { list-style:none; margin:0; padding:0; max-height:28rem; overflow-y:auto; font-size:.85rem; }
#log li { padding:.1rem 0; border-bottom:1px solid rgba(255,255,255,.07); }
#log li.now { color:var(--gold); font-weight:600; }
"""

_BODY = """
<header>
  <h1>Sasaki replay</h1><span id="where"></span>
  <div id="step-text" role="status" aria-live="polite"></div>
</header>
<main>
  <div>
    <div class="table" aria-label="The table (play goes counter-clockwise: each next seat on the right)">
      <section class="seat" id="seat-0"></section><section class="seat" id="seat-1"></section>
      <section id="centre" aria-label="Top play"><div id="top-text"></div><div class="cards" id="top-cards"></div>
        <div id="next-text"></div></section>
      <section class="seat" id="seat-2"></section><section class="seat" id="seat-3"></section>
    </div>
    <div class="controls">
      <button id="first" type="button" aria-label="First" aria-keyshortcuts="Home">First<kbd>Home</kbd></button>
      <button id="previous" type="button"
        aria-label="Previous" aria-keyshortcuts="ArrowLeft">Previous<kbd>&larr;</kbd></button>
      <button id="next" type="button" aria-label="Next" aria-keyshortcuts="ArrowRight">Next<kbd>&rarr;</kbd></button>
      <button id="last" type="button" aria-label="Last" aria-keyshortcuts="End">Last<kbd>End</kbd></button>
      <span id="counter"></span>
    </div>
  </div>
  <aside><section aria-label="This hand so far"><h2>This hand so far</h2><ol id="log"></ol></section></aside>
</main>
"""

_SCRIPT = r"""
"use strict";
const FACES = JSON.parse(document.getElementById("faces").textContent);
const VIEW = JSON.parse(document.getElementById("replay").textContent);
const $ = id => document.getElementById(id);
const PLACES = ["1st","2nd","3rd","4th"];
let at = 0;

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function face(c) { const t = document.createElement("template"); t.innerHTML = FACES[c];
  const s = el("span", {"role":"img", "aria-label": c}); s.append(t.content.firstChild); return s; }

function draw() {
  const steps = VIEW.steps, step = steps[at];
  $("step-text").textContent = step.text;
  $("where").textContent = (step.hand_no ? "Hand " + step.hand_no + " \u00b7 " : "") + VIEW.title;
  $("counter").textContent = "Step " + (at + 1) + " of " + steps.length;
  $("previous").disabled = at === 0; $("first").disabled = at === 0;
  $("next").disabled = at === steps.length - 1; $("last").disabled = at === steps.length - 1;
  for (let s = 0; s < 4; s++) {
    const box = $("seat-" + s); box.replaceChildren();
    const h = el("h2", {}, VIEW.labels[s]);
    const place = step.finish.indexOf(s);
    if (place >= 0) h.append(el("span", {"class":"out"}, "out " + PLACES[place]));
    box.append(h);
    const cards = el("div", {"class":"cards", "aria-label": VIEW.labels[s] + "'s cards"});
    for (const c of step.cards[s] || []) cards.append(face(c));
    box.append(cards);
    box.classList.toggle("next", step.next_text.startsWith(VIEW.labels[s] + "'s turn"));
  }
  $("top-text").textContent = step.top_text || "No top play.";
  const top = $("top-cards"); top.replaceChildren();
  for (const c of step.top) top.append(face(c));
  $("next-text").textContent = step.verdict ? "" :
    step.next_text + (step.multiplier > 1 ? " Multiplier x" + step.multiplier + "." : "");
  const log = $("log"); log.replaceChildren();
  let first = at;
  while (first > 0 && steps[first - 1].hand_no === step.hand_no && !steps[first - 1].verdict) first--;
  for (let i = first; i <= at; i++) log.append(el("li", {"class": i === at ? "now" : ""}, steps[i].text));
  log.scrollTop = log.scrollHeight;
}
function go(to) {
  at = Math.max(0, Math.min(VIEW.steps.length - 1, to)); draw();
  const a = document.activeElement;   // a button that became disabled hands focus to its partner
  if (a && a.disabled) (a.id === "next" || a.id === "last" ? $("previous") : $("next")).focus();
}
$("first").addEventListener("click", () => go(0));
$("previous").addEventListener("click", () => go(at - 1));
$("next").addEventListener("click", () => go(at + 1));
$("last").addEventListener("click", () => go(VIEW.steps.length - 1));
document.addEventListener("keydown", ev => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const to = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: VIEW.steps.length - 1}[ev.key];
  if (to !== undefined) { ev.preventDefault(); go(to); }
});
draw();
$("next").focus();
"""


def replay_page(name: str, view: dict[str, Any]) -> str:
    """The replay page of the transcript ``name`` (``view``: :func:`p2p_sasaki.cli.view.view_json`)."""
    def data(key: str, value: object) -> str:
        text = json.dumps(value).replace("</", "<\\/")
        return f'<script type="application/json" id="{key}">{text}</script>'

    title = "Sasaki replay: " + name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{title}</title><style>" + _CSS + "</style></head><body>" + _BODY
            + data("faces", faces()) + data("replay", view) + "<script>" + _SCRIPT + "</script></body></html>")
