"""The table protocol, sans-IO: messages, cryptography, handshakes, deck, consensus, audit.

Nothing here touches a socket or a clock; ``protocol.net`` is the only I/O.
"""
