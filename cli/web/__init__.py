"""The table in the browser: a page per player on 127.0.0.1 (``--web``).

``cards.py`` draws the card faces (SVG, by the project), ``page.py`` is the page
(HTML, CSS and plain JavaScript, no build step, nothing loaded from elsewhere),
``server.py`` serves it with h11 and wsproto on trio and pushes the presenter's
:class:`~p2p_sasaki.cli.presenter.TableView` over a WebSocket.
"""
