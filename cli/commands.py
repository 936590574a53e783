"""The ``sasaki`` subcommands and their one-line summaries, in the order ``--help`` lists them.

Kept apart from the subcommand modules so that ``sasaki --help`` and ``sasaki audit`` import
only what they need (cli/main.py imports one subcommand's module, the one asked for).
"""

COMMANDS: dict[str, str] = {
    "play": "find a table on the LAN and join it, or create one (the default)",
    "host": "create a table: show its code, wait for three players, play",
    "join": "join a table with the code its creator shows",
    "resume": "go on with an unfinished table after a crash (--list shows them)",
    "name": "show or change the name the other players see you under",
    "tables": "list the tables advertised on the local network",
    "demo": "four bot peers play over the real protocol on this machine",
    "tournament": "a duplicate Sasku tournament on the LAN: host one, join one, or let bots play a demo",
    "audit": "verify a table transcript (.sasaki) and name any cheater",
    "view": "watch a table transcript as a replay in your browser, step by step",
    "export": "write each hand of a transcript as a game record for 'sasaki replay'",
    "replay": "check a game record and summarise the hand",
    "simulate": "let bots play many hands and compare them",
}
