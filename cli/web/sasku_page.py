"""The page of a Sasku table (the server serves it when the presenter plays Sasku;
Sasaki's page, cli/web/page.py, is unchanged). It reads the same snapshot (TableView, its
``game`` part: cli/games/sasku.py) over the same WebSocket and answers the same way.

Its accessible buttons: ``Bid 5`` .. ``Bid 9``, ``Pass``, ``Diamonds``, ``Give a picture``,
``Take``, ``Refuse``, ``Trump clubs`` (spades, hearts, diamonds): one per legal choice; a
button per card of your hand named like ``QH``, disabled when that card cannot be chosen
now; after choosing a card, ``Play`` (or ``Return`` when handing a card back); once the
match is over, ``Next match`` while the next-match question is open (as on Sasaki's page:
the question, its countdown, then "Waiting for the others to answer ..."), ``Download
transcript`` and ``Close table`` (no next match: it declines an open question). While its
table fills, the creator's page has a "Partners" field with ``Choose partners`` and ``Draw
the pairs`` (cli/pairs.py). All text is set as text (never as markup).
"""

from __future__ import annotations

import functools

__all__ = ["sasku_page"]

_BODY = """
<main>
<h1>Sasku table</h1>
<p id="status" role="status" aria-live="polite">Connecting ...</p>
<p id="reason" role="alert"></p>
<section id="room" aria-label="Partners" hidden><p id="room-now"></p>
<label for="partners">Partners (two names, like Mina+Jun)</label> <input id="partners" type="text">
<button id="choose" type="button">Choose partners</button>
<button id="draw" type="button">Draw the pairs</button></section>
<section aria-label="The deal"><p id="contract"></p><p id="trump"></p><p id="trick"></p></section>
<section aria-label="Pairs"><ul id="pairs"></ul><p id="race"></p></section>
<section aria-label="Your decision"><p id="question"></p><div id="choices"></div><div id="act"></div></section>
<section aria-label="Your hand"><div id="hand"></div></section>
<section aria-label="Play by play"><ol id="log"></ol></section>
<section id="end" aria-label="Result" hidden><p id="verdict"></p>
<p id="next-question" hidden></p>
<button id="next" type="button" hidden>Next match</button>
<button id="download" type="button">Download transcript</button>
<button id="leave" type="button" title="Ends your table: no next match">Close table</button></section>
</main>
"""

_SCRIPT = """
const $ = id => document.getElementById(id);
let socket = null, table = null, chosen = null, closed = false, nextEnd = null;
function send(m) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(m)); }
function answer(key) { if (table && table.prompt) { $("reason").textContent = "";
  send({type: "answer", prompt: table.prompt.id, key: key}); chosen = null; } }
function button(label, onclick, disabled) {
  const b = document.createElement("button"); b.type = "button"; b.textContent = label;
  b.disabled = !!disabled; b.addEventListener("click", onclick); return b; }
function text(id, value) { $(id).textContent = value || ""; }
function draw() {
  const t = table, g = t.game, p = t.prompt;
  text("status", t.status || t.waiting);
  const choices = $("choices"), act = $("act"), hand = $("hand"), pairs = $("pairs"), log = $("log");
  choices.replaceChildren(); act.replaceChildren(); hand.replaceChildren(); pairs.replaceChildren();
  log.replaceChildren();
  text("question", p ? p.question : "");
  const cardPrompt = p && (p.kind === "play" || p.kind === "return");
  if (p && !cardPrompt) for (const group of p.groups) for (const c of group.choices)
    choices.append(button(c.label, () => answer(c.key)));
  if (g) {
    text("contract", g.contract ? "Contract: " + g.contract : "");
    text("trump", g.trump ? "Trump: " + g.trump : "No trump yet");
    text("trick", "Trick: " + (g.trick.map(x => x[1] + " " + x[2]).join(", ") || "(empty)"));
    for (const card of g.hand) {
      const ok = cardPrompt && p.playable.includes(card);
      const b = button(card, () => { chosen = card; draw(); }, !ok);
      if (chosen === card) b.setAttribute("aria-pressed", "true");
      hand.append(b); }
    for (const pair of g.pairs) { const li = document.createElement("li");
      li.textContent = pair.label + (pair.yours ? " (your pair)" : "") + ": " + pair.card_points +
        " card points, " + pair.tricks + " tricks, " + pair.game_points + " game points"; pairs.append(li); }
    text("race", "Match: " + g.race);
  }
  if (cardPrompt && chosen !== null && p.playable.includes(chosen))
    act.append(button(p.kind === "play" ? "Play" : "Return", () => answer(chosen)));
  for (const note of t.log.slice(-12)) { const li = document.createElement("li"); li.textContent = note.text;
    log.append(li); }
  // The creator's waiting room: partners by name, or the draw, until the table is full.
  $("room").hidden = t.partners === null;
  text("room-now", t.partners === null ? "" : (t.partners === "draw" ? "The seating draw decides the pairs."
    : "Partners chosen: " + t.partners.replace("+", " and ") + "."));
  // The match is over: the verdict, the next match with the same four (asked until you
  // answer, then the others are awaited), the transcript, Close table (no next match).
  $("end").hidden = t.verdict === null && !t.next_match;
  text("verdict", t.verdict);
  $("download").disabled = !t.transcript;
  const n = t.next_match;
  $("next").hidden = !(n && n.answer === null);
  $("next-question").hidden = !n;
  if (n && n.answer === null) {
    $("next-question").textContent = n.question + " ";
    if (n.seconds_left !== null) { nextEnd = Date.now() + n.seconds_left * 1000;
      $("next-question").append(Object.assign(document.createElement("span"), {id: "next-countdown"})); tickNext(); }
  } else { nextEnd = null;
    $("next-question").textContent = n && n.answer ? "Waiting for the others to answer ..." : ""; }
}
function tickNext() {
  const c = $("next-countdown");
  if (c && nextEnd !== null) c.textContent = "(" + Math.max(0, Math.ceil((nextEnd - Date.now()) / 1000)) + " s left)";
}
setInterval(tickNext, 250);
$("next").addEventListener("click", () => {
  if (table && table.next_match) send({type: "next-match", offer: table.next_match.id, accept: true}); });
$("download").addEventListener("click", () => { location.href = location.pathname + "transcript"; });
$("choose").addEventListener("click", () => send({type: "partners", names: $("partners").value}));
$("draw").addEventListener("click", () => send({type: "partners", names: "draw"}));
$("leave").addEventListener("click", () => { closed = true; send({type: "leave"});
  text("status", "Table closed (no next match); you can close this tab."); });
function connect() {
  socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host +
    location.pathname + "ws");
  socket.onmessage = ev => { const m = JSON.parse(ev.data);
    if (m.type === "table") { table = m.table; draw(); }
    else if (m.type === "refused") text("reason", "Not taken: " + m.reason + "."); };
  socket.onclose = () => {
    if (closed) { text("status", "Table closed (no next match); you can close this tab."); return; }
    if (table && table.verdict !== null && table.next_match === null) {
      text("status", "The table has ended (the sasaki program finished); you can close this tab."); return; }
    setTimeout(connect, 1000); };
}
connect();
"""


@functools.cache
def sasku_page() -> str:
    """The whole page (the token is in the address only)."""
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>Sasku table</title></head><body>" + _BODY + "<script>" + _SCRIPT + "</script></body></html>")
