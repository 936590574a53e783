"""The only I/O of the protocol: TCP mesh, framing, mDNS discovery, joining."""
