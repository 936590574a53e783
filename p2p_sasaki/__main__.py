"""``python -m p2p_sasaki``: the ``sasaki`` command (the only place the game package reaches the command line)."""

from p2p_sasaki.cli.main import main

raise SystemExit(main())
